package io.actiongate.notifier;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The durable record of intent before a notice is sent (the executor's fence, for notices): claims and results by
 * notice id, shared by every instance of the notifier. Of all claims of one id, on any instance, ever (within the
 * retention), exactly one wins, and the winner sends. {@link KafkaLedger} keeps it on the notifier's own one-partition
 * topic.
 */
interface NoticeLedger extends AutoCloseable {

    /** A claim: who took a notice, and when. */
    record Claim(String id, String nonce, String owner, Instant at) {
    }

    /** What became of a claimed notice: how many of its messages were delivered. */
    record Result(String id, String nonce, Instant at, int delivered, int messages) {
    }

    /** Whether the ledger has read everything written before this instance started. */
    boolean caughtUp();

    /** Whether any instance has claimed {@code id}, as far as this one has read. */
    boolean claimed(String id);

    /** The claim of {@code id} this instance knows, or null. */
    Claim claim(String id);

    /**
     * Claims {@code id} for {@code owner}: returns whether this claim is the first of the id, after reading it back.
     * Throws when the ledger cannot confirm the write (then nothing may be sent; a later try finds the claim if it
     * landed, and loses to it).
     */
    boolean tryClaim(String id, String owner, Instant now);

    /** Records what became of the notice this instance claimed. */
    void result(Result result);

    /** Claims older than {@code after} without a result: their instance stopped before it could record one. */
    List<Claim> unconfirmed(Instant now, Duration after);

    /** Why the ledger stopped, or null. */
    Throwable failure();

    @Override
    void close();
}
