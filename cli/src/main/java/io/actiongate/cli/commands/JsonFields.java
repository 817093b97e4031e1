package io.actiongate.cli.commands;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Strict reading of operator JSON: every error names the document and the field, so the one-line CLI error tells
 * the operator what to fix. Unknown fields are errors (a typo must not silently drop a setting).
 */
final class JsonFields {

    private final String what;
    private final JsonNode node;

    JsonFields(String what, JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(what + ": expected a JSON object");
        }
        this.what = what;
        this.node = node;
    }

    String what() {
        return what;
    }

    void allowOnly(Set<String> allowed) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw bad(name, "is not a known field");
            }
        }
    }

    boolean has(String field) {
        JsonNode value = node.get(field);
        return value != null && !value.isNull();
    }

    JsonNode raw(String field) {
        return node.get(field);
    }

    String text(String field) {
        JsonNode value = required(field);
        if (!value.isTextual() || value.asText().isEmpty()) {
            throw bad(field, "must be a non-empty string");
        }
        return value.asText();
    }

    String optionalText(String field) {
        return has(field) ? text(field) : null;
    }

    long longValue(String field) {
        JsonNode value = required(field);
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw bad(field, "must be an integer");
        }
        return value.asLong();
    }

    int intValue(String field) {
        JsonNode value = required(field);
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw bad(field, "must be a 32-bit integer");
        }
        return value.asInt();
    }

    boolean bool(String field) {
        JsonNode value = required(field);
        if (!value.isBoolean()) {
            throw bad(field, "must be true or false");
        }
        return value.asBoolean();
    }

    Boolean optionalBool(String field) {
        return has(field) ? bool(field) : null;
    }

    <E extends Enum<E>> E enumValue(String field, Class<E> type) {
        String text = text(field);
        try {
            return Enum.valueOf(type, text);
        } catch (IllegalArgumentException e) {
            throw bad(field, "must be one of " + List.of(type.getEnumConstants()) + ", was '" + text + "'");
        }
    }

    List<String> textList(String field, boolean required) {
        if (!has(field)) {
            if (required) {
                throw bad(field, "is required");
            }
            return List.of();
        }
        JsonNode value = node.get(field);
        if (!value.isArray()) {
            throw bad(field, "must be an array of strings");
        }
        List<String> items = new ArrayList<>();
        for (JsonNode item : value) {
            if (!item.isTextual() || item.asText().isEmpty()) {
                throw bad(field, "must be an array of non-empty strings");
            }
            items.add(item.asText());
        }
        return items;
    }

    Map<String, String> optionalTextMap(String field) {
        if (!has(field)) {
            return null;
        }
        JsonNode value = node.get(field);
        if (!value.isObject()) {
            throw bad(field, "must be an object of strings");
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            if (!e.getValue().isTextual()) {
                throw bad(field + "." + e.getKey(), "must be a string");
            }
            map.put(e.getKey(), e.getValue().asText());
        }
        return map;
    }

    /** An ISO-8601 instant string or epoch milliseconds; {@code fallback} when absent. */
    Instant instant(String field, Instant fallback) {
        if (!has(field)) {
            return fallback;
        }
        JsonNode value = node.get(field);
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return Instant.ofEpochMilli(value.asLong());
        }
        if (value.isTextual()) {
            try {
                return Instant.parse(value.asText());
            } catch (DateTimeParseException e) {
                throw bad(field, "must be an ISO-8601 instant like 2026-01-31T12:00:00Z");
            }
        }
        throw bad(field, "must be an ISO-8601 instant or epoch milliseconds");
    }

    JsonFields object(String field) {
        JsonNode value = required(field);
        if (!value.isObject()) {
            throw bad(field, "must be an object");
        }
        return new JsonFields(what + "." + field, value);
    }

    private JsonNode required(String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw bad(field, "is required");
        }
        return value;
    }

    IllegalArgumentException bad(String field, String problem) {
        return new IllegalArgumentException(what + ": field '" + field + "' " + problem);
    }
}
