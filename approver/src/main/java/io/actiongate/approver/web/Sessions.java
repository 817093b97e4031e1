package io.actiongate.approver.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.actiongate.approver.review.Identity;

/**
 * Server-side sessions in memory, by random id. A session ends after {@code idle} without a request or {@code max}
 * after sign-in, whichever comes first; an ended session is removed when it is next looked up and by {@link #sweep}.
 * Sessions are per instance: behind a load balancer use sticky sessions (documented in the README).
 */
public final class Sessions {

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final Duration idle;
    private final Duration max;
    private final Clock clock;

    public Sessions(Duration idle, Duration max, Clock clock) {
        this.idle = idle;
        this.max = max;
        this.clock = clock;
    }

    public Session create(Identity identity) {
        Session s = new Session(Tokens.random(), identity, clock.instant());
        sessions.put(s.id(), s);
        return s;
    }

    /** The live session for this id, touched; empty when unknown or ended. */
    public Optional<Session> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Session s = sessions.get(id);
        if (s == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (ended(s, now)) {
            sessions.remove(id, s);
            return Optional.empty();
        }
        s.touch(now);
        return Optional.of(s);
    }

    public void end(String id) {
        if (id != null) {
            sessions.remove(id);
        }
    }

    public void sweep() {
        Instant now = clock.instant();
        sessions.values().removeIf(s -> ended(s, now));
    }

    private boolean ended(Session s, Instant now) {
        return now.isAfter(s.lastSeen().plus(idle)) || now.isAfter(s.createdAt().plus(max));
    }

    public int size() {
        return sessions.size();
    }
}
