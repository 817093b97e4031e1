package io.actiongate.connector.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The mcp connector's pure half. An operation is {@code UPSTREAM/TOOL}: a tool of a configured upstream MCP server is
 * its own operation. Every such tool is an {@link Classification.Kind#EFFECT} here: the connector cannot see inside a
 * tool, so only the operator's imported {@code ToolDescriptor} ({@code read_only_hint=true}, approval {@code NONE})
 * makes one a trusted read at the gate. Anything else (another form, an upstream not configured) is
 * {@link Classification.Kind#UNSUPPORTED}. Validation: the input is one JSON object within {@code max-input-bytes};
 * the tool's own input schema is checked by the executor against the live upstream right before sending.
 */
final class McpClassifier implements OperationClassifier {

    private final McpSettings settings;

    McpClassifier(McpSettings settings) {
        this.settings = settings;
    }

    /** One operation, parsed. */
    record Operation(String upstream, String tool) {

        /** {@code UPSTREAM/TOOL}: an upstream name, a slash, an MCP tool name. */
        private static final Pattern FORM = Pattern.compile("(" + McpSettings.NAME.pattern() + ")/("
                + McpSettings.TOOL.pattern() + ")");

        static Optional<Operation> parse(String operation) {
            if (operation == null) {
                return Optional.empty();
            }
            Matcher m = FORM.matcher(operation);
            return m.matches() ? Optional.of(new Operation(m.group(1), m.group(2))) : Optional.empty();
        }

        /** {@code UPSTREAM/TOOL}, the operation of an upstream's tool. */
        static String of(String upstream, String tool) {
            return upstream + "/" + tool;
        }
    }

    @Override
    public String provider() {
        return McpConnectorFactory.PROVIDER;
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        Optional<Operation> op = Operation.parse(operation);
        if (op.isEmpty()) {
            return Classification.unsupported("not an MCP operation of the form UPSTREAM/TOOL");
        }
        if (settings.upstream(op.get().upstream()).isEmpty()) {
            return Classification.unsupported("no upstream MCP server named " + op.get().upstream());
        }
        return Classification.effect("MCP tool " + op.get().tool() + " of " + op.get().upstream()
                + " (a read only by its imported tool descriptor)");
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        return validate(operation, inputJson, null);
    }

    @Override
    public Validation validate(String operation, String inputJson, JsonNode parsedInput) {
        if (Operation.parse(operation).isEmpty()) {
            return Validation.invalid("not an MCP operation of the form UPSTREAM/TOOL");
        }
        if (inputJson == null) {
            return Validation.invalid("the input is missing");
        }
        if (inputJson.getBytes(StandardCharsets.UTF_8).length > settings.maxInputBytes()) {
            return Validation.invalid("the input is above " + settings.maxInputBytes() + " bytes");
        }
        if (Json.object(inputJson, parsedInput).isEmpty()) {
            return Validation.invalid("the input is not a JSON object");
        }
        return Validation.ok();
    }
}
