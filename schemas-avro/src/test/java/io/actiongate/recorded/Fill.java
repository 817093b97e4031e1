package io.actiongate.recorded;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Deterministic sample values for every field of a generated Avro record, derived from the field's path and type
 * alone, so that the build that writes a record and a later build that reads it agree on every value without
 * sharing code: formats/record.sh copies this file into the old tree beside each generator (formats/README.md),
 * and {@link RecordedContractFormatsTest} reads the recordings with it.
 */
public final class Fill {

    /** 2026-01-01T00:00:00Z: every timestamp is this plus a path-derived offset. */
    public static final long EPOCH = 1_767_225_600_000L;

    private Fill() {
    }

    /**
     * An instance of {@code schema}'s generated class with every field set. Unions take their first non-null
     * branch, except a union holding a record named {@code branch}, which takes that one.
     */
    public static SpecificRecordBase record(Schema schema, String branch) {
        return (SpecificRecordBase) value(schema, schema.getName(), branch);
    }

    public static Object value(Schema s, String path, String branch) {
        int h = Math.floorMod(path.hashCode(), 1_000_000_007);
        switch (s.getType()) {
            case RECORD: {
                SpecificRecordBase r = (SpecificRecordBase) SpecificData.get().newRecord(null, s);
                for (Schema.Field f : s.getFields()) {
                    r.put(f.pos(), value(f.schema(), path + "." + f.name(), branch));
                }
                return r;
            }
            case UNION: {
                Schema chosen = null;
                for (Schema b : s.getTypes()) {
                    if (b.getType() == Schema.Type.RECORD && b.getName().equals(branch)) {
                        chosen = b;
                    }
                }
                if (chosen == null) {
                    for (Schema b : s.getTypes()) {
                        if (b.getType() != Schema.Type.NULL) {
                            chosen = b;
                            break;
                        }
                    }
                }
                String branchPath = chosen.getType() == Schema.Type.RECORD ? path + "<" + chosen.getName() + ">"
                        : path;
                return value(chosen, branchPath, branch);
            }
            case STRING:
                return path;
            case LONG:
                if (s.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
                    return Instant.ofEpochMilli(EPOCH + h);
                }
                return (long) h;
            case INT:
                return h % 1000;
            case BOOLEAN:
                return h % 2 == 0;
            case ENUM: {
                String symbol = s.getEnumSymbols().get(h % s.getEnumSymbols().size());
                return SpecificData.get().createEnum(symbol, s);
            }
            case ARRAY: {
                List<Object> list = new ArrayList<>();
                list.add(value(s.getElementType(), path + "[0]", branch));
                return list;
            }
            case MAP: {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put(path + "{k}", value(s.getValueType(), path + "{k}", branch));
                return map;
            }
            case BYTES:
                return ByteBuffer.wrap(bytes(path, 64));
            case DOUBLE:
                return h / 7.0;
            case FLOAT:
                return h / 7.0f;
            case NULL:
                return null;
            default:
                throw new IllegalArgumentException("no sample for " + s.getType() + " at " + path);
        }
    }

    /** {@code n} bytes derived from {@code path} (SHA-256 of the path and a counter). */
    public static byte[] bytes(String path, int n) {
        try {
            byte[] out = new byte[n];
            for (int i = 0; i * 32 < n; i++) {
                byte[] d = MessageDigest.getInstance("SHA-256")
                        .digest((path + "#" + i).getBytes(StandardCharsets.UTF_8));
                System.arraycopy(d, 0, out, i * 32, Math.min(32, n - i * 32));
            }
            return out;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
