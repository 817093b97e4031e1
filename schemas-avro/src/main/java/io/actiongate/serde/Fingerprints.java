package io.actiongate.serde;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Fingerprints as a host in another language meets them: each released schema's Parsing Canonical Form (PCF)
 * fingerprint as it appears on the wire, and what an unknown fingerprint most likely is. The usual mistake is a PCF
 * taken from a schema whose named types ({@code Origin}, {@code Attachment}, ...) are referenced by name instead of
 * inlined at their first use, which is what a shared named-type registry gives when the schema is not expanded
 * first; a record of another type on the wrong topic is the next.
 */
public final class Fingerprints {

    private static final Map<SchemaCatalog, Map<Long, Match>> KNOWN =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** A schema the fingerprint was recognised as: the record, its released version, and how it was written. */
    public record Match(String record, int version, boolean namedTypesReferenced) {
    }

    private Fingerprints() {
    }

    /** The CRC-64-AVRO fingerprint of {@code schema}'s PCF, as single-object encoding uses it. */
    public static long of(Schema schema) {
        return SchemaNormalization.parsingFingerprint64(schema);
    }

    /** The 8 fingerprint bytes that follow the marker {@code C3 01} on the wire (little-endian), in hex. */
    public static String wireHex(long fingerprint) {
        byte[] bytes = new byte[8];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (fingerprint >>> (8 * i));
        }
        return HexFormat.of().formatHex(bytes);
    }

    /** The fingerprint in a single-object header ({@code C3 01} then 8 bytes little-endian). */
    static long fromHeader(byte[] payload) {
        long fingerprint = 0;
        for (int i = 0; i < 8; i++) {
            fingerprint |= (payload[2 + i] & 0xffL) << (8 * i);
        }
        return fingerprint;
    }

    /**
     * The PCF of {@code schema} with every named type below the top level written as its full name, never
     * inlined: what a PCF computed over a schema resolved against a shared named-type registry, but not expanded,
     * looks like. With {@code referenced=false} this is exactly {@link SchemaNormalization#toParsingForm}.
     */
    public static String parsingForm(Schema schema, boolean referenced) {
        StringBuilder out = new StringBuilder();
        write(schema, new HashSet<>(), referenced, true, out);
        return out.toString();
    }

    /** The fingerprint of {@link #parsingForm(Schema, boolean) parsingForm(schema, true)}. */
    public static long referencedFingerprint(Schema schema) {
        return SchemaNormalization.fingerprint64(parsingForm(schema, true).getBytes(StandardCharsets.UTF_8));
    }

    /** What {@code fingerprint} is among the released schemas and their referenced-named-types forms. */
    public static Optional<Match> recognise(long fingerprint, SchemaCatalog catalog) {
        // computed once per catalog: a flood of bad records costs a map lookup each
        return Optional.ofNullable(KNOWN.computeIfAbsent(catalog, Fingerprints::known).get(fingerprint));
    }

    private static Map<Long, Match> known(SchemaCatalog catalog) {
        Map<Long, Match> known = new HashMap<>();
        for (String name : catalog.recordNames()) {
            List<Schema> versions = catalog.versionsOf(name);
            for (int v = 0; v < versions.size(); v++) {
                Schema schema = versions.get(v);
                known.putIfAbsent(referencedFingerprint(schema), new Match(schema.getName(), v + 1, true));
                known.put(of(schema), new Match(schema.getName(), v + 1, false));
            }
        }
        return Map.copyOf(known);
    }

    /**
     * The dead-letter reason for a payload whose fingerprint is no released version of {@code expected}: what the
     * fingerprint resembles, and the fingerprint(s) expected.
     */
    static String unknownFingerprintReason(Schema expected, byte[] payload, SchemaCatalog catalog) {
        long offered = fromHeader(payload);
        List<String> wanted = new ArrayList<>();
        List<Schema> versions = catalog.versionsOf(expected.getFullName());
        for (int v = 0; v < versions.size(); v++) {
            wanted.add("v" + (v + 1) + " " + wireHex(of(versions.get(v))));
        }
        String resembles = recognise(offered, catalog).map(m -> m.namedTypesReferenced()
                        ? "it is " + m.record() + " v" + m.version() + " with its named types referenced by name "
                                + "instead of inlined at first use (inline each at its first use before taking the "
                                + "Parsing Canonical Form)"
                        : "it is the fingerprint of " + m.record() + " v" + m.version() + ", another record")
                .orElse("it resembles no released schema (compare the Parsing Canonical Form)");
        return "fingerprint " + wireHex(offered) + " is no released " + expected.getName() + " schema: " + resembles
                + "; expected " + expected.getName() + " " + String.join(", ", wanted)
                + " (docs/contract.md section 3)";
    }

    private static void write(Schema s, Set<String> seen, boolean referenced, boolean top, StringBuilder out) {
        switch (s.getType()) {
            case RECORD, ENUM, FIXED -> {
                String name = s.getFullName();
                if (seen.contains(name) || (referenced && !top)) {
                    out.append('"').append(name).append('"');
                    return;
                }
                seen.add(name);
                out.append("{\"name\":\"").append(name).append("\",\"type\":\"")
                        .append(s.getType().getName()).append('"');
                if (s.getType() == Schema.Type.RECORD) {
                    out.append(",\"fields\":[");
                    boolean first = true;
                    for (Schema.Field f : s.getFields()) {
                        out.append(first ? "" : ",").append("{\"name\":\"").append(f.name()).append("\",\"type\":");
                        write(f.schema(), seen, referenced, false, out);
                        out.append('}');
                        first = false;
                    }
                    out.append(']');
                } else if (s.getType() == Schema.Type.ENUM) {
                    out.append(",\"symbols\":[");
                    boolean first = true;
                    for (String symbol : s.getEnumSymbols()) {
                        out.append(first ? "" : ",").append('"').append(symbol).append('"');
                        first = false;
                    }
                    out.append(']');
                } else {
                    out.append(",\"size\":").append(s.getFixedSize());
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append("{\"type\":\"array\",\"items\":");
                write(s.getElementType(), seen, referenced, false, out);
                out.append('}');
            }
            case MAP -> {
                out.append("{\"type\":\"map\",\"values\":");
                write(s.getValueType(), seen, referenced, false, out);
                out.append('}');
            }
            case UNION -> {
                out.append('[');
                boolean first = true;
                for (Schema branch : s.getTypes()) {
                    out.append(first ? "" : ",");
                    write(branch, seen, referenced, false, out);
                    first = false;
                }
                out.append(']');
            }
            default -> out.append('"').append(s.getType().getName()).append('"');
        }
    }
}
