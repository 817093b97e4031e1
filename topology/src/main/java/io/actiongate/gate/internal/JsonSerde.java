package io.actiongate.gate.internal;

import java.io.IOException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

import io.actiongate.serde.UnknownFormatException;

/**
 * JSON serde for the gate's internal state records (state stores and their changelogs only, never a contract
 * topic). Unknown fields are ignored so a newer layout can be read back by an older build during a rollback;
 * each record carries its own layout version.
 */
public final class JsonSerde<T> implements Serde<T>, Serializer<T>, Deserializer<T> {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final Class<T> type;
    private final java.util.function.ToIntFunction<T> version;
    private final int known;

    public JsonSerde(Class<T> type) {
        this(type, null, 0);
    }

    /**
     * A serde of records that carry their layout version ({@code version}, e.g. a member {@code v}): one of a
     * version above {@code known}, which a newer gate wrote, is not read with the members this build knows but
     * stops the gate ({@link UnknownFormatException}), naming the member {@code writtenBy} when the record has it.
     */
    public JsonSerde(Class<T> type, java.util.function.ToIntFunction<T> version, int known) {
        this.type = type;
        this.version = version;
        this.known = known;
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        try {
            return MAPPER.writeValueAsBytes(data);
        } catch (IOException e) {
            throw new SerializationException("cannot encode " + type.getSimpleName(), e);
        }
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        try {
            T value = MAPPER.readValue(data, type);
            if (version != null && version.applyAsInt(value) > known) {
                com.fasterxml.jackson.databind.JsonNode writtenBy = MAPPER.readTree(data).get("writtenBy");
                throw new UnknownFormatException(topic == null ? type.getSimpleName() + " store" : topic,
                        type.getSimpleName() + " v" + version.applyAsInt(value),
                        writtenBy != null && writtenBy.isTextual() ? writtenBy.asText() : null,
                        type.getSimpleName() + " v1" + (known > 1 ? " to v" + known : ""));
            }
            return value;
        } catch (IOException e) {
            // the message may quote stored text; keep only the type
            throw new SerializationException("cannot decode " + type.getSimpleName() + ": "
                    + e.getClass().getSimpleName());
        }
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
        // nothing to configure
    }

    @Override
    public void close() {
        // nothing to release
    }

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }
}
