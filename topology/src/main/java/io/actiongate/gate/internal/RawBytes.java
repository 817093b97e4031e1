package io.actiongate.gate.internal;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The serde of a hop topic fed by a node whose outputs are typed {@code Object}: it writes the byte arrays it is
 * given unchanged and reads them back as byte arrays (the next node decodes them).
 */
public final class RawBytes implements Serde<Object>, Serializer<Object>, Deserializer<Object> {

    @Override
    public byte[] serialize(String topic, Object data) {
        if (data == null || data instanceof byte[]) {
            return (byte[]) data;
        }
        throw new IllegalStateException("a hop topic carries raw bytes, not " + data.getClass().getSimpleName());
    }

    @Override
    public Object deserialize(String topic, byte[] data) {
        return data;
    }

    @Override
    public Serializer<Object> serializer() {
        return this;
    }

    @Override
    public Deserializer<Object> deserializer() {
        return this;
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
        // nothing to configure
    }

    @Override
    public void close() {
        // nothing held
    }
}
