package io.actiongate.gate.internal;

import java.util.Optional;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.policy.Rejection;

/**
 * A signed decision. APPROVE/REJECT settle WAITING_APPROVAL (APPROVE rechecks policy and reserves attempt 1);
 * RESOLVE_EFFECT_CONFIRMED / RESOLVE_NO_EFFECT settle UNKNOWN (resolved_by OWNER). A decision that fails
 * verification, names an unknown action or does not apply to the action's phase changes nothing and becomes a
 * dead letter with its reason code: there is no receipt to put it on without changing the action's state, and
 * operators need to see forged or stale decisions.
 */
public final class DecisionProcessor implements Processor<String, Inbound<Decision>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(DecisionProcessor.class);

    private final GateConfig config;
    private final PolicyChanges policyChanges;
    private final DecisionVerifier verifier;
    private final OperationClassifiers operations;
    private ProcessorContext<Object, Object> context;
    private Lifecycle lifecycle;
    /** Held once: handing it and the record to {@link Lifecycle#atomically} allocates nothing per record. */
    private final java.util.function.Consumer<Record<String, Inbound<Decision>>> decideBody = this::decide;

    public DecisionProcessor(GateConfig config, OperationClassifiers operations) {
        this(config, operations, PolicyChanges.uncached());
    }

    public DecisionProcessor(GateConfig config, OperationClassifiers operations, PolicyChanges policyChanges) {
        this.config = config;
        this.policyChanges = policyChanges;
        this.verifier = new DecisionVerifier(config.trustedKeys(), config.approvers());
        this.operations = operations;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.lifecycle = new Lifecycle(context, config, operations, policyChanges);
    }

    @Override
    public void process(Record<String, Inbound<Decision>> record) {
        lifecycle.atomically(record.value(), "decision", decideBody, record);
    }

    private void decide(Record<String, Inbound<Decision>> record) {
        Inbound<Decision> in = record.value();
        Decision d = in.value();
        if (!ActionKey.isValid(d.getTaskId(), d.getToolCallId())) {
            deadLetter(in, ReasonCode.INVALID_IDENTIFIER, "task_id/tool_call_id are not valid identifiers");
            return;
        }
        String key = ActionKey.format(d.getTaskId(), d.getToolCallId());
        if (!key.equals(record.key())) {
            deadLetter(in, ReasonCode.KEY_MISMATCH, "record key differs from the decision's task_id/tool_call_id");
            return;
        }
        ActionState state = lifecycle.load(key);
        if (state == null) {
            deadLetter(in, ReasonCode.APPROVAL_DIGEST_MISMATCH, "the gate holds no action " + key);
            return;
        }
        long now = lifecycle.now();
        // a decision that passed its claim had its signature verified there, in this same pipeline (one Ed25519
        // verification per decision); any other is verified here, before anything in it is believed
        boolean used = lifecycle.decisionUsed(d.getDecisionId());
        Optional<Rejection> refusal = (in.signatureVerified() ? verifier.verifyAgainst(d, state, used, now)
                : verifier.verify(d, state, used, now)).or(() -> applicable(d.getType(), state));
        if (refusal.isPresent()) {
            deadLetter(in, refusal.get().code(), refusal.get().reason());
            return;
        }
        lifecycle.useDecision(d.getDecisionId());
        LOG.debug("action {}: decision {} {} applied", key, d.getDecisionId(), d.getType());
        switch (d.getType()) {
            case APPROVE -> approve(state, d, now);
            case REJECT -> lifecycle.save(state, state.withApproval(d.getDecisionId(), null, null)
                    .to(Phase.DENIED, null, "rejected by " + d.getApproverOrg(), now));
            case RESOLVE_EFFECT_CONFIRMED -> lifecycle.save(state, state
                    .withResolution(ActionState.Resolver.OWNER, null, d.getDecisionId())
                    .to(Phase.SUCCEEDED, state.reasonCode(), "owner confirmed the effect", now));
            case RESOLVE_NO_EFFECT -> lifecycle.save(state, state
                    .withResolution(ActionState.Resolver.OWNER, null, d.getDecisionId())
                    .to(Phase.NOT_APPLIED, state.reasonCode(), "owner confirmed no effect", now));
            default -> throw new IllegalStateException("unhandled decision type");
        }
    }

    private void approve(ActionState state, Decision d, long now) {
        ActionState approved = state.withApproval(d.getDecisionId(), d.getApproverSubject(),
                d.getExpiresAt().toEpochMilli())
                .to(Phase.APPROVED, null, null, now);
        // one receipt for this decision: the state the recheck leaves (DISPATCHING, or the refusal), not APPROVED
        lifecycle.recheckAndReserve(state, approved);
    }

    /** A decision applies only to the phase it settles; anything else is stale or replayed. */
    private static Optional<Rejection> applicable(DecisionType type, ActionState state) {
        boolean ok = switch (type) {
            case APPROVE, REJECT -> state.phase() == Phase.WAITING_APPROVAL;
            case RESOLVE_EFFECT_CONFIRMED, RESOLVE_NO_EFFECT -> state.phase() == Phase.UNKNOWN;
        };
        if (ok) {
            return Optional.empty();
        }
        ReasonCode code = state.phase() == Phase.EXPIRED ? ReasonCode.APPROVAL_EXPIRED : ReasonCode.APPROVAL_REUSED;
        return Optional.of(new Rejection(code, type + " does not apply to an action that is " + state.phase()));
    }

    private void deadLetter(Inbound<Decision> in, ReasonCode code, String reason) {
        DeadLetters.send(context, in, code, reason);
    }
}
