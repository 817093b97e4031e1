package io.actiongate.approver.state;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** {@link SharedState} in the memory of one process: for tests and a single replica. */
public final class LocalState implements SharedState {

    private final ConcurrentHashMap<String, Versioned> values = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Boolean> claims = new ConcurrentHashMap<>();

    @Override
    public Optional<Versioned> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    @Override
    public boolean compareAndSet(String key, long expectedVersion, byte[] value) {
        boolean[] done = {false};
        values.compute(key, (k, cur) -> {
            long v = cur == null ? 0 : cur.version();
            if (v != expectedVersion) {
                return cur;
            }
            done[0] = true;
            return new Versioned(v + 1, value.clone());
        });
        return done[0];
    }

    @Override
    public boolean claim(String key) {
        return claims.putIfAbsent(key, Boolean.TRUE) == null;
    }

    @Override
    public boolean claimed(String key) {
        return claims.containsKey(key);
    }

    @Override
    public java.util.List<String> keys(String prefix) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        values.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(out::add);
        claims.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(out::add);
        return java.util.List.copyOf(out);
    }

    @Override
    public void forget(String key) {
        values.remove(key);
        claims.remove(key);
    }
}
