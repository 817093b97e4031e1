package io.actiongate.http;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.KafkaException;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.client.ActionReceipt;
import io.actiongate.client.IdentityConflictException;
import io.actiongate.client.InvalidProposalException;
import io.actiongate.client.ProposalHandle;
import io.actiongate.client.ProposalRequest;
import io.actiongate.client.ReceiptState;
import io.actiongate.client.ReceiptTimeoutException;
import io.actiongate.client.Until;
import io.actiongate.key.ActionKey;
import io.actiongate.mcp.HostIdentity;

/**
 * {@code POST /v1/proposals} (docs/contract.md section 7): a tool host in any language proposes one tool call as
 * JSON. The identity comes from the host's token, the digests are computed here, a missing {@code task_version}
 * and the {@code authorization_epoch} come from the policy topic; the client library publishes and matches the
 * first receipt. Answers: 200 with that receipt's state, 202 {@code PROPOSED} when none arrived within
 * {@value ProposalApiConfig#ANSWER_TIMEOUT_CONFIG}, 409 for an identity conflict, 400 with a
 * {@link ProposalRefusal} when nothing was published, 401 without a host token, 408 when the body does not arrive
 * within the body deadline. The body is read without holding a thread.
 */
final class ProposalsHandler implements CallHandler {

    static final String PATH = "/v1/proposals";
    private static final Logger LOG = LoggerFactory.getLogger(ProposalsHandler.class);

    private final ProposalApi api;
    private final AsyncAnswers answers;
    private final long bodyTimeoutMs;

    ProposalsHandler(ProposalApi api, AsyncAnswers answers, long bodyTimeoutMs) {
        this.api = api;
        this.answers = answers;
        this.bodyTimeoutMs = bodyTimeoutMs;
    }

    @Override
    public void handle(HttpCall exchange) throws IOException {
        boolean handedOff = false;
        try {
            if (!PATH.equals(exchange.rawPath())) {
                Responses.json(exchange, 404, HttpJson.error("not_found", "no such resource"));
                return;
            }
            if (!"POST".equals(exchange.method())) {
                exchange.setHeader("Allow", "POST");
                Responses.json(exchange, 405, HttpJson.error("method_not_allowed", "only POST is supported"));
                return;
            }
            Optional<HostIdentity> host = exchange.host(api::hostOf);
            if (host.isEmpty()) {
                LOG.warn("refused POST {} from {}: no valid tool host token", PATH, exchange.remote());
                exchange.setHeader("WWW-Authenticate", "Bearer realm=\"actiongate\"");
                Responses.json(exchange, 401, HttpJson.error("unauthorized", "a tool host's bearer token is required"));
                return;
            }
            if (declaredTooLarge(exchange)) {
                return;
            }
            Answering answering;
            try {
                answering = answering(exchange.rawQuery());
            } catch (IllegalArgumentException e) {
                ActionWaitHandler.invalidQuery(exchange, api.config().maxWait());
                return;
            }
            int max = api.config().maxBodyBytes();
            handedOff = true;
            HostIdentity caller = host.get();
            CompletableFuture<byte[]> read = new CompletableFuture<>();
            Content.Source.asByteArrayAsync(exchange.request(), max, Promise.Invocable.toPromise(read));
            read.orTimeout(bodyTimeoutMs, TimeUnit.MILLISECONDS)
                    .whenComplete((body, failure) -> received(exchange, caller, answering, body, failure, max));
        } finally {
            if (!handedOff) {
                exchange.close();
            }
        }
    }

    /**
     * Which receipt a proposal is answered with: without {@code wait} or {@code until}, the first one within
     * {@value ProposalApiConfig#ANSWER_TIMEOUT_CONFIG}; with them, the first that satisfies {@code until} (terminal
     * by default, or decided) within {@code wait} (capped at {@value ProposalApiConfig#MAX_WAIT_CONFIG}; the answer
     * timeout when only {@code until} is given), else the latest one by then.
     */
    private record Answering(Until until, Duration timeout, boolean waits) {
    }

    private Answering answering(String rawQuery) {
        java.util.Map<String, String> params = ActionWaitHandler.params(rawQuery);
        if (!params.containsKey("wait") && !params.containsKey("until")) {
            return new Answering(Until.ANY, api.config().answerTimeout(), false);
        }
        Duration wait = ActionWaitHandler.waitOf(params.get("wait"), api.config().maxWait());
        Until until = ActionWaitHandler.untilOf(params.get("until")) == ActionWaitHandler.UntilState.DECIDED
                ? Until.DECIDED : Until.TERMINAL;
        return new Answering(until, params.containsKey("wait") && !wait.isZero() ? wait : api.config().answerTimeout(),
                true);
    }

    /** The body arrived, or did not in time, or was too large. */
    private void received(HttpCall exchange, HostIdentity host, Answering answering, byte[] body, Throwable failure,
                          int max) {
        boolean handedOff = false;
        try {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof TimeoutException) {
                exchange.setHeader("Connection", "close");
                Responses.json(exchange, 408, HttpJson.error("body_timeout",
                        "the body did not arrive within " + bodyTimeoutMs + " ms"));
                return;
            }
            if (cause != null) {
                // more than the limit without a Content-Length, or a broken body
                tooLarge(exchange, max);
                return;
            }
            ProposalBody.Parsed parsed;
            try {
                parsed = ProposalBody.parse(body);
            } catch (ProposalBodyException e) {
                refuse(exchange, e);
                return;
            }
            handedOff = propose(exchange, host, answering, parsed);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot answer a proposal: {}", e.getClass().getName());
        } finally {
            if (!handedOff) {
                exchange.close();
            }
        }
    }

    /** True after answering 400 {@code BODY_TOO_LARGE} for a declared length over the limit. */
    private boolean declaredTooLarge(HttpCall exchange) throws IOException {
        int max = api.config().maxBodyBytes();
        String length = exchange.header("Content-Length");
        if (length != null) {
            long declared;
            try {
                declared = Long.parseLong(length.strip());
            } catch (NumberFormatException e) {
                declared = Long.MAX_VALUE;
            }
            if (declared > max) {
                tooLarge(exchange, max);
                return true;
            }
        }
        return false;
    }

    private static void tooLarge(HttpCall exchange, int max) throws IOException {
        refuse(exchange, new ProposalBodyException(ProposalRefusal.BODY_TOO_LARGE, null,
                "the body must be at most " + max + " bytes"));
    }

    private static void refuse(HttpCall exchange, ProposalBodyException e) throws IOException {
        ObjectNode error = HttpJson.error("invalid_proposal", e.getMessage());
        error.put("reason_code", e.reason().name());
        if (e.member() != null) {
            error.put("member", e.member());
        }
        if (e.computedDigest() != null) {
            error.put("computed_digest", e.computedDigest());
            if (e.offeredDigest() != null) {
                error.put("offered_digest", e.offeredDigest());
            }
        }
        if (e.location() != null && e.location().getLineNr() > 0) {
            error.put("line", e.location().getLineNr());
            error.put("column", e.location().getColumnNr());
            error.put("offset", io.actiongate.json.JsonErrors.offset(e.location()));
        }
        Responses.json(exchange, 400, error);
    }

    /** Publishes and arranges the answer; true when the exchange was handed to {@link AsyncAnswers}. */
    private boolean propose(HttpCall exchange, HostIdentity host, Answering answering, ProposalBody.Parsed parsed)
            throws IOException {
        if (!api.policy().ownsTask(host.orgId(), parsed.taskId())) {
            // the gate would refuse it without a receipt (TASK_NOT_OWNED holds no key): say so now, publish nothing
            ObjectNode error = HttpJson.error("task_not_owned",
                    "the task is not one of your org's (or the policy topic does not show it yet); nothing was published");
            error.put("reason_code", "TASK_NOT_OWNED");
            Echo.ifScanned(parsed.taskId()).ifPresent(id -> error.put("task_id", id));
            Responses.json(exchange, 403, error);
            return false;
        }
        // absent from the policy topic: 0, which the gate refuses (TASK_VERSION_CHANGED, AUTHORIZATION_EPOCH_CHANGED)
        long taskVersion = parsed.taskVersion().orElse(api.policy().taskVersion(parsed.taskId()).orElse(0));
        ProposalRequest request = parsed.request()
                .taskVersion(taskVersion)
                .authorizationEpoch(api.policy().epoch(host.orgId()).orElse(0))
                .identity(host.orgId(), host.principalId())
                .profile(host.profileId())
                .build();
        if (!answers.acquire()) {
            Responses.json(exchange, 503, HttpJson.error("busy", "too many answers are pending; retry"));
            return false;
        }
        ProposalHandle handle;
        try {
            handle = api.client().propose(request, answering.until(), answering.timeout());
        } catch (InvalidProposalException e) {
            answers.finish(exchange, () -> refuse(exchange, new ProposalBodyException(
                    ProposalRefusal.INVALID_MEMBER, e.field(), e.getMessage())));
            return true;
        } catch (KafkaException e) {
            LOG.warn("proposal not published: {}", e.toString());
            answers.finish(exchange, () -> Responses.json(exchange, 503,
                    HttpJson.error("unavailable", "Kafka did not take the proposal; retry with the same ids")));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answers.finish(exchange, () -> Responses.json(exchange, 503, HttpJson.error("unavailable", "interrupted")));
            return true;
        } catch (RuntimeException e) {
            LOG.warn("proposal not published: {}", e.getClass().getName());
            answers.finish(exchange, () -> Responses.json(exchange, 503,
                    HttpJson.error("unavailable", "the proposal was not published; retry with the same ids")));
            return true;
        }
        ActionKey key = new ActionKey(parsed.taskId(), parsed.toolCallId());
        handle.receipt().whenComplete((receipt, failure) -> answers.finish(exchange,
                () -> answer(exchange, key, handle, answering, receipt, failure)));
        return true;
    }

    private void answer(HttpCall exchange, ActionKey key, ProposalHandle handle, Answering answering,
            ActionReceipt receipt, Throwable failure) throws IOException {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (cause == null) {
            Responses.json(exchange, 200, describe(key, handle, receipt));
        } else if (cause instanceof IdentityConflictException conflict) {
            ObjectNode body = HttpJson.error("identity_conflict",
                    "the task and tool call ids already name another action; nothing was proposed");
            Echo.ifScanned(key.taskId()).ifPresent(id -> body.put("task_id", id));
            Echo.ifScanned(key.toolCallId()).ifPresent(id -> body.put("tool_call_id", id));
            body.put("existing_digest", conflict.existingDigest());
            body.put("offered_digest", conflict.offeredDigest());
            Responses.json(exchange, 409, body);
        } else if (cause instanceof ReceiptTimeoutException timeout && answering.waits() && timeout.latest() != null) {
            // asked to wait: the state as it is now, as the long poll answers
            Responses.json(exchange, 200, describe(key, handle, timeout.latest()));
        } else if (cause instanceof ReceiptTimeoutException) {
            ObjectNode body = base(key, handle);
            body.put("status", "PROPOSED");
            exchange.setHeader("Location", ActionsHandler.PREFIX + key);
            Responses.json(exchange, 202, body);
        } else {
            LOG.warn("no answer for a proposal: {}", cause.toString());
            Responses.json(exchange, 503, HttpJson.error("unavailable", "the receipts consumer stopped; retry"));
        }
    }

    private ObjectNode base(ActionKey key, ProposalHandle handle) {
        ObjectNode body = HttpJson.MAPPER.createObjectNode();
        body.put("task_id", key.taskId());
        body.put("tool_call_id", key.toolCallId());
        body.put("input_digest", handle.inputDigest());
        body.put("action_digest", handle.actionDigest());
        body.put("action_url", ActionsHandler.PREFIX + key);
        return body;
    }

    private ObjectNode describe(ActionKey key, ProposalHandle handle, ActionReceipt receipt) {
        ObjectNode body = base(key, handle);
        body.put("status", receipt.state().name());
        if (receipt.reasonCode() != null) {
            body.put("reason_code", receipt.reasonCode());
        }
        if (receipt.actionDigest() != null) {
            body.put("action_digest", receipt.actionDigest());
        }
        if (receipt.state() == ReceiptState.WAITING_APPROVAL) {
            String review = api.reviewUrl(key);
            if (review != null) {
                body.put("review_url", review);
            }
        }
        if (receipt.decisionId() != null) {
            body.put("decision_id", receipt.decisionId());
        }
        if (receipt.providerReceiptId() != null) {
            body.put("provider_receipt_id", receipt.providerReceiptId());
        }
        body.put("attempts", receipt.attempts());
        if (receipt.updatedAt() != null) {
            body.put("updated_at", receipt.updatedAt().toString());
        }
        return body;
    }
}
