package io.actiongate.mcp;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.client.ActionGateClient;
import io.actiongate.client.ActionReceipt;
import io.actiongate.client.IdentityConflictException;
import io.actiongate.client.ProposalHandle;
import io.actiongate.client.ProposalRequest;
import io.actiongate.client.ReceiptState;
import io.actiongate.client.ReceiptTimeoutException;
import io.actiongate.client.Until;

/**
 * Approval through the client (docs/contract.md section 6): a call waiting for a person asks a client that declared
 * URL-mode elicitation to open the action's review page ({@code elicitation/create}, mode {@code url}), then waits,
 * at most {@code mcp.gateway.approval.wait.ms}, for the action to be decided and settled, signals the decision with
 * {@code notifications/elicitation/complete}, and gives the settled receipt to answer. The client's answer never
 * reaches the gate: a declined, cancelled or failed elicitation only means the call answers at once. At most
 * {@code mcp.gateway.approval.max.waiting} calls wait at once, each holding an HTTP thread.
 */
final class ClientApproval {

    /** Sends {@code notifications/elicitation/complete} for {@code elicitationId} to the session. */
    interface Completion {
        void complete(String sessionId, String elicitationId);
    }

    /**
     * What to answer: the receipt the wait ended with (null: the first answer, {@code WAITING_APPROVAL}, stands) and
     * a {@code detail} for the state object (null when the action settled).
     */
    record Outcome(ActionReceipt receipt, String detail) {
    }

    static final String CALL_AGAIN = "call again with the same arguments in this session for the outcome";
    private static final Logger LOG = LoggerFactory.getLogger(ClientApproval.class);
    private static final Duration POLL = Duration.ofSeconds(1);
    private static final int REMEMBERED = 10_000;

    private final ActionGateClient client;
    private final Duration wait;
    private final Duration progressEvery;
    private final Semaphore slots;
    private final int maxWaiting;
    private volatile Completion completion = (session, id) -> { };
    /** (session, action key) -> the elicitation the client accepted: a second call waits without asking again. */
    private final Map<String, String> accepted = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** @param progressEvery how often a waiting call whose request carried a progress token says so */
    ClientApproval(ActionGateClient client, Duration wait, Duration progressEvery, int maxWaiting) {
        this.client = client;
        this.wait = wait;
        this.progressEvery = progressEvery;
        this.slots = new Semaphore(maxWaiting);
        this.maxWaiting = maxWaiting;
    }

    /** Set once the MCP server exists (it sends the completion notification). */
    void completion(Completion completion) {
        this.completion = completion;
    }

    /** Whether the client declared URL-mode elicitation at {@code initialize}. */
    static boolean offered(McpSyncServerExchange exchange) {
        McpSchema.ClientCapabilities capabilities = exchange.getClientCapabilities();
        return capabilities != null && capabilities.elicitation() != null
                && capabilities.elicitation().url() != null;
    }

    /**
     * For a call whose action is not settled ({@code first}, the receipt it got): empty when the call answers at once
     * (a client without URL elicitation, a settled action, or too many calls waiting already), else what to answer
     * once the wait ended. An action waiting for its person makes the client be asked to open the review page (once
     * per session and action: a retry after the client accepted waits without asking again); one already decided
     * (APPROVED, DISPATCHING, UNKNOWN) is waited for without asking.
     */
    Optional<Outcome> await(McpSyncServerExchange exchange, ProposalRequest proposal, ActionReceipt first,
            String reviewUrl, String tool, Object progressToken) throws InterruptedException {
        if (!offered(exchange) || first.state().isTerminal()) {
            return Optional.empty();
        }
        String actionKey = first.actionKey();
        if (!slots.tryAcquire()) {
            LOG.info("{} calls wait for a decision already ({}); {} answers at once", maxWaiting,
                    GatewayConfig.APPROVAL_MAX_WAITING_CONFIG, actionKey);
            return Optional.empty();
        }
        try {
            long deadline = System.nanoTime() + wait.toNanos();
            String session = exchange.sessionId();
            String key = session + " " + actionKey;
            String elicitation;
            synchronized (accepted) {
                elicitation = accepted.get(key);
            }
            if (elicitation == null && first.state() == ReceiptState.WAITING_APPROVAL) {
                elicitation = "actiongate-" + UUID.randomUUID();
                McpSchema.ElicitResult answer;
                try {
                    answer = exchange.createElicitation(McpSchema.ElicitUrlRequest.builder(message(tool, actionKey),
                            reviewUrl, elicitation).build());
                } catch (RuntimeException e) {
                    LOG.info("the client did not answer the review page request of {}: {}", actionKey,
                            e.getClass().getSimpleName());
                    return Optional.of(new Outcome(null, "the client did not open the review page; the action still "
                            + "waits for a person's decision there"));
                }
                if (answer.action() != McpSchema.ElicitResult.Action.ACCEPT) {
                    LOG.info("the client answered {} to the review page of {}", answer.action(), actionKey);
                    return Optional.of(new Outcome(null, "the review page was not opened ("
                            + answer.action().name().toLowerCase(java.util.Locale.ROOT) + "); the action still waits"
                            + " for a person's decision there"));
                }
                synchronized (accepted) {
                    accepted.put(key, elicitation);
                }
            }
            String id = elicitation;
            boolean[] completed = {false};
            Runnable decided = () -> {
                if (!completed[0] && id != null) {
                    completed[0] = true;
                    synchronized (accepted) {
                        accepted.remove(key);
                    }
                    completion.complete(session, id);
                }
            };
            ActionReceipt latest = settle(exchange, proposal, deadline, progressToken, decided);
            if (latest != null && latest.state() != ReceiptState.WAITING_APPROVAL) {
                decided.run();
            }
            boolean settled = latest != null && latest.state().isTerminal();
            return Optional.of(new Outcome(latest, settled ? null : CALL_AGAIN));
        } finally {
            slots.release();
        }
    }

    /**
     * Redelivers the proposal (a no-op at the gate) and waits for a terminal receipt until {@code deadline};
     * {@code decided} runs as soon as a receipt shows the action no longer waits for its person.
     */
    private ActionReceipt settle(McpSyncServerExchange exchange, ProposalRequest proposal, long deadline,
            Object progressToken, Runnable decided) throws InterruptedException {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            return null;
        }
        ProposalHandle handle;
        try {
            handle = client.propose(proposal, Until.TERMINAL, Duration.ofNanos(remaining));
        } catch (RuntimeException e) {
            LOG.info("could not wait for {}: {}", proposal.actionKey(), e.getClass().getSimpleName());
            return null;
        }
        long nextProgress = System.nanoTime() + progressEvery.toNanos();
        int progress = 0;
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                return handle.receipt().get(Math.max(1, Math.min(left, POLL.toNanos())), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() - deadline >= 0) {
                    return handle.latest().orElse(null);
                }
                if (handle.latest().map(r -> r.state() != ReceiptState.WAITING_APPROVAL).orElse(false)) {
                    decided.run();
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof ReceiptTimeoutException timeout) {
                    return timeout.latest();
                }
                if (e.getCause() instanceof IdentityConflictException) {
                    // cannot be: the same proposal as before; the first answer stands
                    return null;
                }
                return handle.latest().orElse(null);
            }
            if (progressToken != null && System.nanoTime() - nextProgress >= 0) {
                nextProgress += progressEvery.toNanos();
                try {
                    exchange.progressNotification(new McpSchema.ProgressNotification(progressToken,
                            (double) ++progress, null, "waiting for a person's decision on the review page", null));
                } catch (RuntimeException e) {
                    LOG.debug("progress notification not sent", e);
                }
            }
        }
    }

    /** What the client shows its person: the tool and the action, never a URL (the URL is the request's own). */
    static String message(String tool, String actionKey) {
        return "The tool call " + tool + " (action " + actionKey + ") needs your approval: review it on actiongate's "
                + "review page, where you sign in and approve or deny this exact call. It runs only after approval.";
    }
}
