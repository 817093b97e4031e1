package io.actiongate.approver.web;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;

import io.actiongate.approver.state.SharedState;

/**
 * What a session changes while it lasts (a pending passkey registration, a pending one-time code secret, a
 * confirmation with an existing factor), kept in the {@link SharedState} by session id, not in the session cookie:
 * a browser sends several requests at once (a page, its favicon), and a cookie written by one answer would be
 * overwritten by another carrying an older copy. Every value carries its expiry (the session's end) and is swept
 * after it; secrets are sealed.
 */
final class SessionScratch {

    static final String PREFIX = "session-scratch/";
    private static final int ATTEMPTS = 8;

    private final SharedState state;
    private final Sealer sealer;
    private final Clock clock;

    SessionScratch(SharedState state, Sealer sealer, Clock clock) {
        this.state = state;
        this.sealer = sealer;
        this.clock = clock;
    }

    private static String key(String sessionId, String name) {
        return PREFIX + sessionId + "/" + name;
    }

    void put(String sessionId, String name, String value, long expiresAtMillis) {
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        byte[] record = ByteBuffer.allocate(8 + v.length).putLong(expiresAtMillis).put(v).array();
        for (int i = 0; i < ATTEMPTS; i++) {
            long version = state.get(key(sessionId, name)).map(SharedState.Versioned::version).orElse(0L);
            if (state.compareAndSet(key(sessionId, name), version, record)) {
                return;
            }
        }
        throw new IllegalStateException("a session value kept changing under this write");
    }

    Optional<String> get(String sessionId, String name) {
        return state.get(key(sessionId, name)).flatMap(v -> {
            ByteBuffer b = ByteBuffer.wrap(v.value());
            if (b.remaining() < 8 || b.getLong() < clock.millis()) {
                return Optional.empty();
            }
            byte[] rest = new byte[b.remaining()];
            b.get(rest);
            return Optional.of(new String(rest, StandardCharsets.UTF_8));
        });
    }

    void remove(String sessionId, String name) {
        if (state.get(key(sessionId, name)).isPresent()) {
            state.forget(key(sessionId, name));
        }
    }

    void putSecret(String sessionId, String name, byte[] secret, long expiresAtMillis) {
        put(sessionId, name, sealer.seal(purpose(sessionId, name), secret), expiresAtMillis);
    }

    Optional<byte[]> getSecret(String sessionId, String name) {
        return get(sessionId, name).flatMap(s -> sealer.openBytes(purpose(sessionId, name), s));
    }

    private static String purpose(String sessionId, String name) {
        return "session-secret:" + sessionId + "/" + name;
    }

    /** Forgets every value whose session has ended. */
    void sweep() {
        long now = clock.millis();
        for (String key : state.keys(PREFIX)) {
            state.get(key).ifPresent(v -> {
                if (v.value().length < 8 || ByteBuffer.wrap(v.value()).getLong() < now) {
                    state.forget(key);
                }
            });
        }
    }
}
