package io.actiongate.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The one Jackson mapper of the HTTP surface, and the redaction every action view passes through. */
final class HttpJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** Field names that would carry an input body; never served, whatever a view function returns. */
    private static final String[] INPUT_FIELDS = {"input", "input_json"};

    private HttpJson() {
    }

    static ObjectNode error(String code, String message) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("error", code);
        node.put("message", message);
        return node;
    }

    /** Removes input-body fields at any depth; the view function is the first line of defence, this the last. */
    static JsonNode withoutInputBodies(JsonNode node) {
        JsonNode copy = node.deepCopy();
        strip(copy);
        return copy;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove(java.util.List.of(INPUT_FIELDS));
        }
        for (JsonNode child : node) {
            strip(child);
        }
    }
}
