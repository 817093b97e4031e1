package io.actiongate.serde;

import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.common.errors.SerializationException;
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

    private static final byte[] MARKER = {(byte) 0xC3, (byte) 0x01};
    private static final int HEADER_LENGTH = 10;

    private final Class<T> type;
    private final BinaryMessageEncoder<T> encoder;
    private final BinaryMessageDecoder<T> decoder;
    private final SchemaCatalog catalog;

    AvroSerde(Class<T> type, SchemaCatalog catalog) {
        this.type = type;
        this.catalog = catalog;
        this.encoder = invoke(type, "getEncoder", new Class<?>[0]);
        SchemaStore.Cache released = new SchemaStore.Cache();
        catalog.versionsOf(schemaOf(type).getFullName()).forEach(released::addSchema);
        this.decoder = invoke(type, "createDecoder", new Class<?>[] {SchemaStore.class}, released);
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
