package io.actiongate.connector.x;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.secrets.Redaction;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** X's classification: {@code post} is an effect, nothing else is supported. Needs no setting and no credential. */
public final class XClassifier implements OperationClassifier {

    static final String OPERATION = "post";
    static final int MAX_TEXT = 280;
    /** Far above any valid input: nothing longer is even parsed. */
    private static final int MAX_INPUT_CHARS = 64 * 1024;

    @Override
    public String provider() {
        return XConnectorFactory.PROVIDER;
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        return OPERATION.equals(operation)
                ? Classification.effect("publishes a post")
                : Classification.unsupported("x supports only 'post'");
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        return validate(operation, inputJson, null);
    }

    @Override
    public Validation validate(String operation, String inputJson, JsonNode parsedInput) {
        if (!OPERATION.equals(operation)) {
            return Validation.invalid("x supports only 'post'");
        }
        if (inputJson != null && inputJson.length() > MAX_INPUT_CHARS) {
            return Validation.invalid("input larger than " + MAX_INPUT_CHARS + " characters");
        }
        Optional<ObjectNode> input = Json.object(inputJson, parsedInput);
        if (input.isEmpty()) {
            return Validation.invalid("input is not a JSON object");
        }
        Optional<String> extra = Json.unexpectedField(input.get(), Set.of("text"));
        if (extra.isPresent()) {
            return Validation.invalid("unexpected field '" + Redaction.snippet(extra.get(), 40, List.of()) + "'");
        }
        JsonNode text = input.get().get("text");
        if (text == null || !text.isTextual()) {
            return Validation.invalid("'text' must be a string");
        }
        String value = text.asText();
        if (value.isBlank()) {
            return Validation.invalid("'text' is empty");
        }
        if (value.codePointCount(0, value.length()) > MAX_TEXT) {
            return Validation.invalid("'text' longer than " + MAX_TEXT + " characters");
        }
        return Validation.ok();
    }
}
