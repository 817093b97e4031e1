package io.actiongate.http;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;

/**
 * A readable JSON form of a generated Avro record for operators: field names as in the schema (snake_case),
 * enums as their symbol, timestamps as ISO-8601 instants, unions unwrapped, nulls kept. Fields named
 * {@code input} or {@code input_json} are left out, whatever the record, so a view built with this never
 * carries an input body; bytes fields (signatures) are left out too.
 */
public final class AvroJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private AvroJson() {
    }

    public static ObjectNode toJson(IndexedRecord record) {
        ObjectNode node = NODES.objectNode();
        for (Schema.Field field : record.getSchema().getFields()) {
            if (field.name().equals("input") || field.name().equals("input_json")) {
                continue;
            }
            Object value = record.get(field.pos());
            if (value instanceof ByteBuffer) {
                continue;
            }
            node.set(field.name(), value(value));
        }
        return node;
    }

    private static JsonNode value(Object value) {
        if (value == null) {
            return NODES.nullNode();
        } else if (value instanceof IndexedRecord record) {
            return toJson(record);
        } else if (value instanceof Instant instant) {
            return NODES.textNode(instant.toString());
        } else if (value instanceof Long l) {
            return NODES.numberNode(l);
        } else if (value instanceof Integer i) {
            return NODES.numberNode(i);
        } else if (value instanceof Double d) {
            return NODES.numberNode(d);
        } else if (value instanceof Float f) {
            return NODES.numberNode(f);
        } else if (value instanceof Boolean b) {
            return NODES.booleanNode(b);
        } else if (value instanceof Collection<?> items) {
            ArrayNode array = NODES.arrayNode();
            items.forEach(item -> array.add(value(item)));
            return array;
        } else if (value instanceof Map<?, ?> map) {
            ObjectNode object = NODES.objectNode();
            map.forEach((k, v) -> object.set(String.valueOf(k), value(v)));
            return object;
        }
        return NODES.textNode(value.toString());
    }
}
