package io.actiongate.approver.state;

import java.nio.ByteBuffer;

import org.apache.kafka.common.header.Headers;

import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.UnknownFormatException;

/**
 * One record of {@code approver-state} as {@link KafkaState} writes it, layout 1: its type (one byte: {@link #CAS}
 * 1, {@link #SNAPSHOT} 2, {@link #CLAIM} 3), the writer's nonce (16 bytes), the key's version (8 bytes, big
 * endian), then the value. A later layout uses other type bytes: a record of a type this release does not know was
 * written by a newer approval service, and the replica stops rather than skip it (docs/contract.md section 3).
 */
record StateRecord(byte type, byte[] nonce, long version, byte[] value) {

    static final byte CAS = 1;
    static final byte SNAPSHOT = 2;
    static final byte CLAIM = 3;
    static final int HEADER = 25;

    /** The bytes of this record on the topic. */
    byte[] bytes() {
        return ByteBuffer.allocate(HEADER + value.length).put(type).put(nonce).putLong(version).put(value).array();
    }

    /**
     * The record in {@code bytes}; null for one too short to be a record of a type this release knows (skipped, as
     * before). {@code headers} (the record's, may be null) name a newer writer's release when they carry
     * {@link AvroSerde#FORMAT_HEADER}; {@code where} is the topic position.
     */
    static StateRecord parse(byte[] bytes, Headers headers, String where) {
        if (bytes.length > 0 && (bytes[0] < CAS || bytes[0] > CLAIM)) {
            throw UnknownFormatException.stated(where, "an approval service state record of type " + bytes[0], headers,
                    "record types 1 (compare-and-set), 2 (snapshot) and 3 (claim)");
        }
        if (bytes.length < HEADER) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte type = b.get();
        byte[] nonce = new byte[16];
        b.get(nonce);
        long version = b.getLong();
        byte[] value = new byte[b.remaining()];
        b.get(value);
        return new StateRecord(type, nonce, version, value);
    }
}
