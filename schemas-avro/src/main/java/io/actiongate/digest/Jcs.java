package io.actiongate.digest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * RFC 8785 JSON Canonicalization Scheme: object members sorted by the UTF-16 code units of their names,
 * no insignificant white space, strings escaped minimally, numbers serialised as ECMAScript does.
 */
public final class Jcs {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private Jcs() {
    }

    /** Parses {@code json} (duplicate names rejected) and returns its canonical form. */
    public static String canonicalize(String json) {
        return canonicalize(parse(json));
    }

    /** Canonical UTF-8 bytes of {@code json}. */
    public static byte[] canonicalBytes(String json) {
        return canonicalize(json).getBytes(StandardCharsets.UTF_8);
    }

    /** Parses strictly: one JSON value, no duplicate member names. Throws {@link IllegalArgumentException}. */
    public static JsonNode parse(String json) {
        try {
            JsonNode node = MAPPER.readTree(json);
            if (node == null || node.isMissingNode()) {
                throw new IllegalArgumentException("empty JSON");
            }
            return node;
        } catch (IOException e) {
            // kind and position only, and not Jackson's exception as the cause: its message quotes the document
            String why = e instanceof JsonProcessingException jpe ? io.actiongate.json.JsonErrors.describe(jpe)
                    : "cannot be read";
            throw new IllegalArgumentException("not valid JSON: " + why);
        }
    }

    /** The canonical form of an already parsed value. */
    public static String canonicalize(JsonNode node) {
        StringBuilder out = new StringBuilder();
        write(node, out);
        return out.toString();
    }

    private static void write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> writeObject(node, out);
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(node.get(i), out);
                }
                out.append(']');
            }
            case STRING -> writeString(node.textValue(), out);
            // a float is written as Float.toString, and that text is what a reader of the written JSON parses:
            // canonicalise that value, not the float widened to a double (0.1f is not 0.10000000149011612)
            case NUMBER -> out.append(node.isFloat()
                    ? EcmaNumbers.format(new java.math.BigDecimal(Float.toString(node.floatValue())))
                    : node.isFloatingPointNumber() && !node.isBigDecimal()
                    ? EcmaNumbers.format(node.doubleValue())
                    : EcmaNumbers.format(node.decimalValue()));
            case BOOLEAN -> out.append(node.booleanValue());
            case NULL -> out.append("null");
            default -> throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
        }
    }

    private static void writeObject(JsonNode node, StringBuilder out) {
        List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
        // String.compareTo compares UTF-16 code units, which is exactly RFC 8785's ordering
        members.sort(Map.Entry.comparingByKey());
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, JsonNode> member : members) {
            if (!first) {
                out.append(',');
            }
            first = false;
            writeString(member.getKey(), out);
            out.append(':');
            write(member.getValue(), out);
        }
        out.append('}');
    }

    static void writeString(String value, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else if (Character.isHighSurrogate(c) && i + 1 < value.length()
                            && Character.isLowSurrogate(value.charAt(i + 1))) {
                        out.append(c).append(value.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        // I-JSON (RFC 7493) and so RFC 8785 require well-formed Unicode
                        throw new IllegalArgumentException(
                                "lone surrogate U+" + Integer.toHexString(c) + " at index " + i + " of a string");
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    static String toJson(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectMapper mapper() {
        return MAPPER;
    }

}
