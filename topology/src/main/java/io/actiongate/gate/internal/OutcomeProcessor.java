package io.actiongate.gate.internal;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.serde.WireEnums;

/**
 * The outcome of attempt n, matched by attempt number against the action's live reservation. A duplicate, a
 * stale attempt number or an outcome after the action left DISPATCHING changes nothing (invariant 7).
 * SUCCEEDED and FAILED settle; RETRYABLE / NOT_DISPATCHED wait for retry_at (persisted timer) unless the
 * attempts are used up or retry_at is past the cap; UNKNOWN goes to the reconciler and is never re-dispatched.
 */
public final class OutcomeProcessor implements Processor<String, Inbound<AttemptOutcome>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(OutcomeProcessor.class);

    private static final java.util.regex.Pattern ERROR_CODE = java.util.regex.Pattern.compile("[A-Z0-9_]{1,64}");

    private final GateConfig config;
    private final PolicyChanges policyChanges;
    private Lifecycle lifecycle;
    /** Held once: handing it and the record to {@link Lifecycle#atomically} allocates nothing per record. */
    private final java.util.function.Consumer<Record<String, Inbound<AttemptOutcome>>> settleBody = this::settle;

    public OutcomeProcessor(GateConfig config) {
        this(config, PolicyChanges.uncached());
    }

    public OutcomeProcessor(GateConfig config, PolicyChanges policyChanges) {
        this.config = config;
        this.policyChanges = policyChanges;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.lifecycle = new Lifecycle(context, config, OperationClassifiers.NONE, policyChanges);
    }

    @Override
    public void process(Record<String, Inbound<AttemptOutcome>> record) {
        lifecycle.atomically(record.value(), "outcome", settleBody, record);
    }

    private void settle(Record<String, Inbound<AttemptOutcome>> record) {
        AttemptOutcome o = record.value().value();
        ActionState state = lifecycle.loadNamed(record.key(), record.value(), o.getTaskId(), o.getToolCallId(),
                "outcome");
        if (state == null) {
            return;
        }
        ActionState.AttemptRecord live = state.lastAttempt();
        if (state.phase() != Phase.DISPATCHING || live == null || live.attempt() != o.getAttempt()
                || live.settled()) {
            LOG.debug("action {}: outcome of attempt {} is stale or a duplicate; ignored", state.key(), o.getAttempt());
            return;
        }
        long now = lifecycle.now();
        ActionState observed = state.withAttempt(live.observed(WireEnums.status(o.getStatus()), o.getDispatched(),
                o.getHttpStatus(), safeErrorCode(o.getErrorCode()), o.getStartedAt().toEpochMilli(),
                o.getFinishedAt().toEpochMilli()));
        switch (o.getStatus()) {
            case SUCCEEDED -> lifecycle.save(state, observed
                    .withResolution(ActionState.Resolver.GATE, o.getProviderReceiptId(), null)
                    .to(Phase.SUCCEEDED, null, null, now));
            case FAILED -> {
                ReasonCode code = ReasonCode.RATE_LIMITED.name().equals(o.getErrorCode())
                        ? ReasonCode.RATE_LIMITED : ReasonCode.PROVIDER_REJECTED;
                lifecycle.save(state, observed.withResolution(ActionState.Resolver.GATE, null, null)
                        .to(Phase.FAILED, code, "provider refused the request", now));
            }
            case NOT_DISPATCHED -> {
                ReasonCode refusal = finalRefusal(o.getErrorCode());
                if (refusal != null) {
                    // a retry would read the same object and descriptor again: settle with the executor's reason
                    lifecycle.save(state, observed.withResolution(ActionState.Resolver.GATE, null, null)
                            .to(Phase.FAILED, refusal, "refused before dispatch: " + DispatchRefusals.kind(o),
                                    now));
                } else {
                    retry(state, observed, o, now);
                }
            }
            case RETRYABLE -> retry(state, observed, o, now);
            case UNKNOWN -> lifecycle.unknown(state, observed, null, "executor reported an unknown outcome");
            default -> throw new IllegalStateException("unhandled outcome status");
        }
    }

    private void retry(ActionState state, ActionState observed, AttemptOutcome o, long now) {
        // an attempt the executor refused before sending says why, so the receipt tells a store outage apart
        String why = o.getStatus() == OutcomeStatus.NOT_DISPATCHED
                ? "attempt " + o.getAttempt() + " not dispatched: " + DispatchRefusals.kind(o) : null;
        if (observed.attemptCount() >= config.retryMaxAttempts()) {
            lifecycle.save(state, observed.withResolution(ActionState.Resolver.GATE, null, null).to(Phase.FAILED,
                    ReasonCode.RETRIES_EXHAUSTED, observed.attemptCount() + " attempts used"
                            + (why == null ? "" : "; " + why), now));
            return;
        }
        long retryAt = o.getRetryAt() != null ? o.getRetryAt().toEpochMilli()
                : now + config.retryBackoff().toMillis();
        if (retryAt > now + config.retryAfterCap().toMillis()) {
            lifecycle.save(state, observed.withResolution(ActionState.Resolver.GATE, null, null).to(Phase.FAILED,
                    ReasonCode.RATE_LIMITED, "retry_at is beyond the retry cap", now));
            return;
        }
        lifecycle.save(state, observed.withTimer(null, Math.max(retryAt, now))
                .to(Phase.RETRY_WAIT, null, "attempt " + (observed.attemptCount() + 1) + " scheduled"
                        + (why == null ? "" : " (" + why + ")"), now));
    }

    /** The executor's definite pre-dispatch refusals; anything else not dispatched may be retried. */
    private static ReasonCode finalRefusal(String errorCode) {
        if (ReasonCode.ATTACHMENT_INVALID.name().equals(errorCode)) {
            return ReasonCode.ATTACHMENT_INVALID;
        }
        return ReasonCode.TOOL_SCHEMA_CHANGED.name().equals(errorCode) ? ReasonCode.TOOL_SCHEMA_CHANGED : null;
    }

    /** Error codes travel to receipts: keep only code-shaped values, never free text. */
    static String safeErrorCode(String code) {
        if (code == null) {
            return null;
        }
        return ERROR_CODE.matcher(code).matches() ? code : "OTHER";
    }
}
