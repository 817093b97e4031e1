package io.actiongate.connector.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Optional;
import java.util.Set;

/** Strict JSON for connector inputs and provider answers: duplicate keys are an error, not "last one wins". */
public final class Json {

    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Json() {
    }

    /** The input as a JSON object, or empty if it is not one (or not JSON at all). */
    public static Optional<ObjectNode> object(String json) {
        if (json == null) {
            return Optional.empty();
        }
        try {
            JsonNode node = MAPPER.readTree(json);
            return node instanceof ObjectNode object ? Optional.of(object) : Optional.empty();
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code parsed} as a JSON object when the caller parsed {@code json} already (the gate hands its strict parse to
     * the classifiers), else {@link #object(String)} of the text.
     */
    public static Optional<ObjectNode> object(String json, JsonNode parsed) {
        if (parsed == null) {
            return object(json);
        }
        return parsed instanceof ObjectNode object ? Optional.of(object) : Optional.empty();
    }

    public static Optional<ObjectNode> object(byte[] json) {
        if (json == null || json.length == 0) {
            return Optional.empty();
        }
        try {
            JsonNode node = MAPPER.readTree(json);
            return node instanceof ObjectNode object ? Optional.of(object) : Optional.empty();
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    /** The first field name of {@code object} that is not in {@code allowed}, if any. */
    public static Optional<String> unexpectedField(ObjectNode object, Set<String> allowed) {
        Iterator<String> names = object.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }

    /** A text (or number) value at {@code path} such as {@code data.id}; empty if absent or another type. */
    public static Optional<String> text(ObjectNode object, String... path) {
        JsonNode node = object;
        for (String name : path) {
            node = node.get(name);
            if (node == null) {
                return Optional.empty();
            }
        }
        return node.isTextual() || node.isNumber() ? Optional.of(node.asText()) : Optional.empty();
    }
}
