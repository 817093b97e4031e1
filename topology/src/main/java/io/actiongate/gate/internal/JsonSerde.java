package io.actiongate.gate.internal;

import java.io.IOException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

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

    public JsonSerde(Class<T> type) {
        this.type = type;
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
            return MAPPER.readValue(data, type);
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
