package io.actiongate.storage;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gate's admission check of an action's attachments: metadata only (one HEAD per attachment), bounded as a
 * whole by {@code timeout}, so a slow or unreachable store stalls a stream thread for at most that long. The HEADs
 * run on a small pool of daemon threads; the caller waits for the verdict or the deadline, whichever comes first.
 * Past the deadline the verdict is {@link AttachmentFailure#STORAGE_UNAVAILABLE}: never a pass.
 */
public final class BoundedAdmissionCheck implements AutoCloseable {

    private final AttachmentVerifier verifier;
    private final ObjectStoreConfig config;
    private final Duration timeout;
    private final ExecutorService pool;

    public BoundedAdmissionCheck(AttachmentVerifier verifier, ObjectStoreConfig config, Duration timeout,
                                 int threads) {
        this.verifier = verifier;
        this.config = config;
        this.timeout = timeout;
        AtomicInteger counter = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "actiongate-attachment-admission-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Empty when every attachment verified; otherwise the first failure. */
    public Optional<Verification.Failed> check(String taskId, String toolCallId, String provider, String toolName,
                                               List<AttachmentRef> refs) {
        if (refs.isEmpty()) {
            return Optional.empty();
        }
        String invocation = Invocations.ownerId(taskId, toolCallId);
        AttachmentLimits limits = config.limits(provider, toolName);
        Optional<Verification.Failed> declared = verifier.checkDeclared(refs, invocation, limits);
        if (declared.isPresent()) {
            return declared;
        }
        Future<Verification> verdict = pool.submit(() -> verifier.verifyStored(refs, invocation, limits));
        try {
            Verification v = verdict.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return v instanceof Verification.Failed f ? Optional.of(f) : Optional.empty();
        } catch (TimeoutException e) {
            verdict.cancel(true);
            return unavailable("no answer from the object store within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            verdict.cancel(true);
            Thread.currentThread().interrupt();
            return unavailable("interrupted while checking attachments");
        } catch (ExecutionException e) {
            return unavailable("attachment check failed (" + e.getCause().getClass().getSimpleName() + ")");
        }
    }

    private static Optional<Verification.Failed> unavailable(String detail) {
        return Optional.of(new Verification.Failed(-1, AttachmentFailure.STORAGE_UNAVAILABLE, detail));
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
