package io.actiongate.client;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A published proposal: its key and digests, and its receipt as a future. Proposing the same call again (same
 * {@link ProposalRequest}) gives a handle on the same action; the gate treats the second publication as a no-op and
 * re-publishes its latest receipt.
 */
public final class ProposalHandle {

    private final String actionKey;
    private final String inputDigest;
    private final String actionDigest;
    private final Until until;
    private final Duration timeout;
    private final CompletableFuture<ActionReceipt> receipt;
    private final ReceiptWatcher watcher;

    ProposalHandle(String actionKey, String inputDigest, String actionDigest, Until until, Duration timeout,
            CompletableFuture<ActionReceipt> receipt, ReceiptWatcher watcher) {
        this.actionKey = actionKey;
        this.inputDigest = inputDigest;
        this.actionDigest = actionDigest;
        this.until = until;
        this.timeout = timeout;
        this.receipt = receipt;
        this.watcher = watcher;
    }

    /** {@code task_id/tool_call_id}. */
    public String actionKey() {
        return actionKey;
    }

    public String inputDigest() {
        return inputDigest;
    }

    /** What an approver signs (docs/contract.md section 3, "Digests"). */
    public String actionDigest() {
        return actionDigest;
    }

    /**
     * Completes with the first receipt the handle waits for (see {@link Until}); exceptionally with
     * {@link IdentityConflictException} when the gate refused the offer as a conflict, or
     * {@link ReceiptTimeoutException} after the timeout given to {@link ActionGateClient#propose}.
     */
    public CompletableFuture<ActionReceipt> receipt() {
        return receipt;
    }

    /**
     * Blocks for {@link #receipt()}; its failures are thrown as they are ({@link IdentityConflictException},
     * {@link ReceiptTimeoutException}, or {@link IllegalStateException} when the client stopped).
     */
    public ActionReceipt await() throws InterruptedException {
        try {
            // the future itself times out; the extra second only guards against a stalled completion
            return receipt.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (TimeoutException e) {
            throw new ReceiptTimeoutException(actionKey, until, timeout, latest().orElse(null));
        }
    }

    /**
     * The latest receipt of this action that the client has seen while some handle waited on it, whatever its
     * state; empty once nobody waits (the client keeps no state per action beyond its waiting handles).
     */
    public Optional<ActionReceipt> latest() {
        return Optional.ofNullable(watcher.latest(actionKey));
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof RuntimeException r) {
            return r;
        }
        return new IllegalStateException(cause);
    }
}
