package io.actiongate.notifier;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link NoticeLedger} in memory with the Kafka ledger's rule (the first claim of an id wins, for every instance
 * sharing it): what a restart or a second replica sees when they share one.
 */
final class LocalLedger implements NoticeLedger {

    final Map<String, Claim> claims = new ConcurrentHashMap<>();
    final Map<String, Result> results = new ConcurrentHashMap<>();
    final AtomicInteger claimWrites = new AtomicInteger();
    volatile boolean failWrites;

    @Override
    public boolean caughtUp() {
        return true;
    }

    @Override
    public boolean claimed(String id) {
        return claims.containsKey(id);
    }

    @Override
    public Claim claim(String id) {
        return claims.get(id);
    }

    @Override
    public boolean tryClaim(String id, String owner, Instant now) {
        if (failWrites) {
            throw new IllegalStateException("the state topic did not confirm a write");
        }
        claimWrites.incrementAndGet();
        String nonce = UUID.randomUUID().toString();
        return claims.computeIfAbsent(id, k -> new Claim(id, nonce, owner, now)).nonce().equals(nonce);
    }

    @Override
    public void result(Result result) {
        results.put(result.id(), result);
    }

    @Override
    public List<Claim> unconfirmed(Instant now, Duration after) {
        List<Claim> out = new ArrayList<>();
        claims.values().forEach(c -> {
            if (!results.containsKey(c.id()) && c.at().isBefore(now.minus(after))) {
                out.add(c);
            }
        });
        return out;
    }

    @Override
    public Throwable failure() {
        return null;
    }

    @Override
    public void close() {
    }
}
