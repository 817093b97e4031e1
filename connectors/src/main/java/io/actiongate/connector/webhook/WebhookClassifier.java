package io.actiongate.connector.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The webhook's classification: by operation name, from {@code operations} and {@code read-operations}; inputs are
 * JSON objects of at most {@code max-input-bytes}. Reads no credential. Classifies by operation only
 * ({@link #classifiesPerInput()} is false), so a configured read operation is auto-approved only when its tool
 * descriptor also says {@code read_only_hint=true}.
 */
public final class WebhookClassifier implements OperationClassifier {

    static final String OPERATIONS = "operations";
    static final String READ_OPERATIONS = "read-operations";
    static final String MAX_INPUT_BYTES = "max-input-bytes";

    /** An operation becomes one path segment: no slashes, dots-only names or encodings. */
    static final Pattern OPERATION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    private final Set<String> effectOperations;
    private final Set<String> readOperations;
    private final long maxInputBytes;

    WebhookClassifier(Set<String> effectOperations, Set<String> readOperations, long maxInputBytes) {
        this.effectOperations = Set.copyOf(effectOperations);
        this.readOperations = Set.copyOf(readOperations);
        this.maxInputBytes = maxInputBytes;
    }

    static WebhookClassifier from(ConnectorContext context) {
        Set<String> effects = Settings.list(context, OPERATIONS);
        Set<String> reads = Settings.list(context, READ_OPERATIONS);
        Set<String> all = new HashSet<>(effects);
        all.addAll(reads);
        for (String op : all) {
            if (!OPERATION.matcher(op).matches()) {
                throw new IllegalArgumentException("operation names must match " + OPERATION.pattern());
            }
        }
        if (effects.stream().anyMatch(reads::contains)) {
            throw new IllegalArgumentException("an operation cannot be both in '" + OPERATIONS + "' and '"
                    + READ_OPERATIONS + "'");
        }
        long maxInput = Settings.longValue(context, MAX_INPUT_BYTES, 256 * 1024);
        if (maxInput <= 0) {
            throw new IllegalArgumentException("connector setting '" + MAX_INPUT_BYTES + "' must be positive");
        }
        return new WebhookClassifier(effects, reads, maxInput);
    }

    @Override
    public String provider() {
        return WebhookConnectorFactory.PROVIDER;
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        if (operation != null && readOperations.contains(operation)) {
            return Classification.read("configured in read-operations");
        }
        if (operation != null && effectOperations.contains(operation)) {
            return Classification.effect("configured in operations");
        }
        return Classification.unsupported("operation not configured for this webhook");
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        return validate(operation, inputJson, null);
    }

    @Override
    public Validation validate(String operation, String inputJson, JsonNode parsedInput) {
        if (operation == null || !(readOperations.contains(operation) || effectOperations.contains(operation))) {
            return Validation.invalid("operation not configured for this webhook");
        }
        if (inputJson == null) {
            return Validation.invalid("input missing");
        }
        if (inputJson.length() > maxInputBytes || inputJson.getBytes(StandardCharsets.UTF_8).length > maxInputBytes) {
            return Validation.invalid("input larger than " + maxInputBytes + " bytes");
        }
        if (Json.object(inputJson, parsedInput).isEmpty()) {
            return Validation.invalid("input is not a JSON object");
        }
        return Validation.ok();
    }

    Set<String> effectOperations() {
        return effectOperations;
    }

    Set<String> readOperations() {
        return readOperations;
    }

    long maxInputBytes() {
        return maxInputBytes;
    }
}
