package io.actiongate.approver.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.approver.review.Identity;
import io.actiongate.approver.state.SharedState;

/**
 * Sessions sealed into the browser's cookie ({@link Session}): nothing per session is kept by the service while it
 * lasts, so their number costs no memory and any replica serves any session. A session ends after {@code idle}
 * without a request or {@code max} after sign-in, whichever comes first (both carried sealed in the cookie, which
 * is sealed again on every answer), or at sign-out: then its id is marked ended in the shared state until
 * {@code max} after its sign-in, so a copy of the cookie opens nothing.
 */
public final class Sessions {

    /** The purpose a session cookie is sealed for. */
    static final String PURPOSE = "actiongate-approver-session-v1";
    private static final String ENDED = "session-ended/";
    /**
     * Members a cookie carries that this release does not know are dropped, not refused: a cookie sealed before the
     * pending registration and one-time code secrets moved to the shared state ({@link SessionScratch}) still opens
     * its session after an upgrade. Only the service itself seals cookies (AES-GCM under its key).
     */
    private static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .disable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    private final SharedState state;
    private final Sealer sealer;
    private final Duration idle;
    private final Duration max;
    private final Clock clock;

    public Sessions(SharedState state, Sealer sealer, Duration idle, Duration max, Clock clock) {
        this.state = state;
        this.sealer = sealer;
        this.idle = idle;
        this.max = max;
        this.clock = clock;
        this.scratch = new SessionScratch(state, sealer, clock);
    }

    private final SessionScratch scratch;

    public Session create(Identity identity) {
        Instant now = clock.instant();
        return new Session(Tokens.random(), identity, now).attach(scratch, now.plus(max));
    }

    /** Whether this answer must carry the session cookie again (it was extended). */
    public boolean needsSealing(Session s) {
        return s.touched();
    }

    /** The cookie value for this session as it is now. */
    public String seal(Session s) {
        try {
            return sealer.seal(PURPOSE, JSON.writeValueAsString(s.data()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The live session in this cookie, touched; empty when it does not open, has ended or was signed out. */
    public Optional<Session> find(String cookie) {
        if (cookie == null || cookie.length() > 4096) {
            return Optional.empty();
        }
        Session s = sealer.open(PURPOSE, cookie).map(text -> {
            try {
                return Session.of(JSON.readValue(text, Session.Data.class));
            } catch (IOException e) {
                return null;
            }
        }).orElse(null);
        if (s == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (ended(s, now) || state.get(ENDED + s.id()).isPresent()) {
            return Optional.empty();
        }
        s.touch(now);
        return Optional.of(s.attach(scratch, s.createdAt().plus(max)));
    }

    /** Signs out: this session's cookie opens nothing any more, on any replica. */
    public void end(Session s) {
        long until = s.createdAt().plus(max).toEpochMilli();
        state.compareAndSet(ENDED + s.id(), 0, ByteBuffer.allocate(8).putLong(until).array());
    }

    /** Whether the session with this id was signed out. */
    public boolean signedOut(String sessionId) {
        return state.get(ENDED + sessionId).isPresent();
    }

    /** Forgets sign-out marks and changing values of sessions that would have ended anyway. */
    public void sweep() {
        scratch.sweep();
        long now = clock.instant().toEpochMilli();
        for (String key : state.keys(ENDED)) {
            state.get(key).ifPresent(v -> {
                if (v.value().length != 8 || ByteBuffer.wrap(v.value()).getLong() < now) {
                    state.forget(key);
                }
            });
        }
    }

    private boolean ended(Session s, Instant now) {
        return now.isAfter(s.lastSeen().plus(idle)) || now.isAfter(s.createdAt().plus(max));
    }
}
