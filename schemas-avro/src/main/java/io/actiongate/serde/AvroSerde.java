package io.actiongate.serde;

import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka serde for one generated Avro record type using Avro single-object encoding: {@code C3 01}, the
 * 8-byte little-endian CRC-64-AVRO fingerprint of the writer schema, then Avro binary. Writes with the
 * current schema; reads any released version of the record (resolved by fingerprint from {@link SchemaCatalog})
 * into the current classes. Null is a tombstone both ways.
 */
public final class AvroSerde<T extends SpecificRecordBase> implements Serde<T>, Serializer<T>, Deserializer<T> {

    static {
        AvroSetup.install();
    }

    /**
     * The Kafka header a record written in a schema version with a {@code since} release carries (see
     * {@link SchemaCatalog#since}): {@code <Record> v<N>; actiongate <writer's release>}, so that a role of an older
     * release that meets it can say what it met and who wrote it (docs/contract.md section 3).
     */
    public static final String FORMAT_HEADER = "actiongate.format";

    /**
     * What a record's {@link #FORMAT_HEADER} states, split at its {@code ;}: the format and version before it (the
     * whole text when there is none), the writer's release after it (null when there is none).
     */
    public record Stated(String format, String writer) {

        /** The statement of {@code headers} (may be null), or null when they carry no {@link #FORMAT_HEADER}. */
        public static Stated of(Headers headers) {
            Header stated = headers == null ? null : headers.lastHeader(FORMAT_HEADER);
            if (stated == null || stated.value() == null) {
                return null;
            }
            String text = new String(stated.value(), StandardCharsets.UTF_8);
            int split = text.indexOf(';');
            return split < 0 ? new Stated(text.trim(), null)
                    : new Stated(text.substring(0, split).trim(), text.substring(split + 1).trim());
        }
    }

    private static final byte[] MARKER = {(byte) 0xC3, (byte) 0x01};
    private static final int HEADER_LENGTH = 10;

    private final Class<T> type;
    private final BinaryMessageEncoder<T> encoder;
    private final BinaryMessageDecoder<T> decoder;
    private final SchemaCatalog catalog;
    /** The value of {@link #FORMAT_HEADER} on every record this serde writes, or null (no since release). */
    private final byte[] stamp;

    AvroSerde(Class<T> type, SchemaCatalog catalog) {
        this(type, catalog, Release.current());
    }

    AvroSerde(Class<T> type, SchemaCatalog catalog, String release) {
        this.type = type;
        this.catalog = catalog;
        this.encoder = invoke(type, "getEncoder", new Class<?>[0]);
        SchemaStore.Cache released = new SchemaStore.Cache();
        List<Schema> versions = catalog.versionsOf(schemaOf(type).getFullName());
        versions.forEach(released::addSchema);
        this.decoder = invoke(type, "createDecoder", new Class<?>[] {SchemaStore.class}, released);
        Schema current = schemaOf(type);
        this.stamp = catalog.since(current).map(since -> (current.getName() + " v" + version(versions, current)
                + "; " + release).getBytes(StandardCharsets.UTF_8)).orElse(null);
    }

    private static int version(List<Schema> versions, Schema schema) {
        long fingerprint = SchemaCatalog.fingerprint(schema);
        for (int v = 0; v < versions.size(); v++) {
            if (SchemaCatalog.fingerprint(versions.get(v)) == fingerprint) {
                return v + 1;
            }
        }
        throw new IllegalStateException(schema.getName() + " is written in a schema that is not released: list "
                + "it in index.txt");
    }

    /** The schema this serde writes with. */
    public static Schema schemaOf(Class<? extends SpecificRecordBase> type) {
        return invoke(type, "getClassSchema", new Class<?>[0]);
    }

    @SuppressWarnings("unchecked")
    private static <R> R invoke(Class<?> type, String method, Class<?>[] parameterTypes, Object... args) {
        try {
            return (R) type.getMethod(method, parameterTypes).invoke(null, args);
        } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalArgumentException(type.getName() + " is not a generated Avro record", e);
        }
    }

    public Class<T> type() {
        return type;
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        try {
            ByteBuffer buffer = encoder.encode(data);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot encode " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** As {@link #serialize(String, Object)}, stamping {@link #FORMAT_HEADER} when this version has a since release. */
    @Override
    public byte[] serialize(String topic, Headers headers, T data) {
        byte[] bytes = serialize(topic, data);
        if (stamp != null && bytes != null && headers != null) {
            headers.remove(FORMAT_HEADER);
            headers.add(FORMAT_HEADER, stamp);
        }
        return bytes;
    }

    /**
     * Whether {@code record}'s value, which this serde could not read, is a newer version of its record: the marker is right
     * and the fingerprint is neither a released version of the record nor anything else this build recognises
     * (another record, a record's form with its named types referenced). Then the exception that stops a role
     * reading a topic only actiongate writes, naming where it was read ({@link #where}) and, from {@link #FORMAT_HEADER} when the
     * record carries it, the version and the release that wrote it; else null (a dead letter, as before).
     */
    public UnknownFormatException newerVersion(ConsumerRecord<?, byte[]> record) {
        return newerVersion(record.value(), record.headers(),
                where(record.topic(), record.partition(), record.offset()));
    }

    /** Where a record was read, as a refusal names it: {@code topic-partition@offset}. */
    public static String where(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }

    /** {@link #newerVersion(ConsumerRecord)} of a payload read elsewhere ({@code where}: as {@link #where} writes it). */
    public UnknownFormatException newerVersion(byte[] payload, Headers headers, String where) {
        if (payload == null || payload.length < HEADER_LENGTH
                || !Arrays.equals(payload, 0, MARKER.length, MARKER, 0, MARKER.length)) {
            return null;
        }
        long fingerprint = Fingerprints.fromHeader(payload);
        List<Schema> versions = catalog.versionsOf(schemaOf(type).getFullName());
        for (Schema known : versions) {
            if (SchemaCatalog.fingerprint(known) == fingerprint) {
                return null;
            }
        }
        if (Fingerprints.recognise(fingerprint, catalog).isPresent()) {
            return null;
        }
        Stated stated = Stated.of(headers);
        String version = stated == null ? type.getSimpleName() + " with fingerprint " + Fingerprints.wireHex(fingerprint)
                : stated.format() + " (fingerprint " + Fingerprints.wireHex(fingerprint) + ")";
        return new UnknownFormatException(where, version, stated == null ? null : stated.writer(),
                type.getSimpleName() + " v1" + (versions.size() > 1 ? " to v" + versions.size() : ""));
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length < MARKER.length || !Arrays.equals(data, 0, MARKER.length, MARKER, 0, MARKER.length)) {
            throw new AvroDecodeException(AvroDecodeException.Reason.BAD_MARKER,
                    "not Avro single-object encoding (" + data.length + " bytes)", null);
        }
        if (data.length < HEADER_LENGTH) {
            throw new AvroDecodeException(AvroDecodeException.Reason.TRUNCATED,
                    "header cut off after " + data.length + " bytes", null);
        }
        try {
            return decoder.decode(data);
        } catch (MissingSchemaException e) {
            throw new AvroDecodeException(AvroDecodeException.Reason.UNKNOWN_FINGERPRINT,
                    Fingerprints.unknownFingerprintReason(schemaOf(type), data, catalog), e);
        } catch (BadHeaderException e) {
            throw new AvroDecodeException(AvroDecodeException.Reason.BAD_MARKER, e.getMessage(), e);
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException
                 | ClassCastException | IllegalArgumentException | OutOfMemoryError e) {
            // Avro wraps the EOFException of a short payload in "Decoding datum failed"
            if (endsEarly(e)) {
                throw new AvroDecodeException(AvroDecodeException.Reason.TRUNCATED,
                        type.getSimpleName() + " payload ends early", e);
            }
            throw new AvroDecodeException(AvroDecodeException.Reason.MALFORMED,
                    type.getSimpleName() + " does not decode: " + e.getClass().getSimpleName(), e);
        }
    }

    private static boolean endsEarly(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof EOFException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
        // nothing to configure: the schemas travel with the build
    }

    @Override
    public void close() {
        // nothing to release
    }
}
