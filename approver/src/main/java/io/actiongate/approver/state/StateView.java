package io.actiongate.approver.state;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.header.Headers;

/**
 * What the records of {@code approver-state} add up to, applied in log order as every replica applies them: a
 * compare-and-set takes effect only if the key is at its expected version when the log reaches it, a snapshot
 * restores a key's true state, a claim only if the key was not claimed before, a tombstone forgets the key.
 * {@link KafkaState} keeps one, fed by its reader thread.
 */
final class StateView {

    /** A key's current value: its version and the nonce of the write that set it. */
    record Entry(long version, byte[] nonce, byte[] value) {
    }

    private final Map<String, Entry> values = new ConcurrentHashMap<>();
    private final Map<String, byte[]> claims = new ConcurrentHashMap<>();

    /**
     * Applies the record {@code bytes} (null: a tombstone) of {@code key}; false when it is not a state record and
     * was skipped. Throws {@link io.actiongate.serde.UnknownFormatException} on a record type a newer release
     * writes: nothing after it may be applied.
     */
    boolean apply(String key, byte[] bytes, Headers headers, String where) {
        if (bytes == null) {
            values.remove(key);
            claims.remove(key);
            return true;
        }
        StateRecord record = StateRecord.parse(bytes, headers, where);
        if (record == null) {
            return false;
        }
        long version = record.version();
        switch (record.type()) {
            case StateRecord.CAS -> values.compute(key, (k, cur) -> {
                // the first record seen for a key after compaction is its latest state
                if (cur == null || cur.version() == version - 1) {
                    return new Entry(version, record.nonce(), record.value());
                }
                return cur;
            });
            case StateRecord.SNAPSHOT -> values.compute(key, (k, cur) -> cur == null || cur.version() <= version
                    ? new Entry(version, record.nonce(), record.value()) : cur);
            default -> claims.putIfAbsent(key, record.nonce());
        }
        return true;
    }

    Optional<Entry> value(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /** The nonce of the claim that won {@code key}, or null. */
    byte[] claim(String key) {
        return claims.get(key);
    }

    List<String> keys(String prefix) {
        TreeSet<String> out = new TreeSet<>();
        values.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(out::add);
        claims.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(out::add);
        return List.copyOf(out);
    }

    int values() {
        return values.size();
    }

    int claims() {
        return claims.size();
    }
}
