package io.actiongate.gate.internal;

import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ActionProposal;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.gate.AttachmentCheck;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.ApprovalRoute;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.policy.PolicyChecks;
import io.actiongate.policy.PolicySnapshot;
import io.actiongate.policy.Rejection;
import io.actiongate.policy.TaskOwnership;

/**
 * A proposal: identity (redelivery or conflict), admission, the provider's classification, routing. Admitted
 * actions are either reserved at once (trusted read with approval NONE, active origin request) or wait for a signed
 * approval. The policy is read once per record ({@link PolicySnapshot}) and every decision is taken on that
 * snapshot.
 *
 * <p>Identity is the whole frozen action, tenant included ({@link ActionIdentity}): a proposal under a held key that
 * differs in anything is an identity conflict, whoever sent it, and the held action is untouched.
 *
 * <p>Only the org owning a key's task may hold the key or get a receipt under it (docs/contract.md, "Who may hold a
 * key"). A proposal under an unknown task, a task of another org or of no org is a dead letter (and the metric
 * {@value #PROPOSALS_NOT_OWNED}), not held, so the owner's own proposal is still admitted. Records whose ids are
 * invalid or differ from the key are never held either: when the record key is a valid action key whose task the
 * proposer's org owns, a REJECTED receipt goes out under it; otherwise the record is a dead letter.
 */
public final class ProposalProcessor implements Processor<String, Inbound<ActionProposal>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ProposalProcessor.class);

    private final GateConfig config;
    private final PolicyChanges policyChanges;
    private final Admission admission;
    private final OperationClassifiers operations;
    private final AttachmentCheck attachments;
    /** Metric (group {@link Lifecycle#METRIC_GROUP}, tag {@code task-id}) of proposals refused without a key. */
    public static final String PROPOSALS_NOT_OWNED = "proposals-not-owned-total";

    private ProcessorContext<Object, Object> context;
    private Lifecycle lifecycle;
    /** Held once: handing it and the record to {@link Lifecycle#atomically} allocates nothing per record. */
    private final java.util.function.Consumer<Record<String, Inbound<ActionProposal>>> admitBody = this::admit;
    private Sensor notOwned;

    public ProposalProcessor(GateConfig config, CredentialCheck credentials, OperationClassifiers operations) {
        this(config, credentials, operations, AttachmentCheck.WITHOUT_STORAGE);
    }

    public ProposalProcessor(GateConfig config, CredentialCheck credentials, OperationClassifiers operations,
                             AttachmentCheck attachments) {
        this(config, credentials, operations, attachments, PolicyChanges.uncached());
    }

    public ProposalProcessor(GateConfig config, CredentialCheck credentials, OperationClassifiers operations,
                             AttachmentCheck attachments, PolicyChanges policyChanges) {
        this.config = config;
        this.policyChanges = policyChanges;
        this.admission = new Admission(config.summaryMaxChars(), config.maxInputBytesDefault(), credentials);
        this.operations = operations;
        this.attachments = attachments;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.lifecycle = new Lifecycle(context, config, operations, policyChanges);
        String task = context.taskId().toString();
        this.notOwned = context.metrics().addSensor("actiongate-proposals-not-owned-" + task,
                Sensor.RecordingLevel.INFO);
        notOwned.add(new MetricName(PROPOSALS_NOT_OWNED, Lifecycle.METRIC_GROUP,
                "Proposals refused without holding their key (unknown task, or a task of another org or of none):"
                        + " dead-lettered, no receipt", Map.of("task-id", task)), new CumulativeCount());
    }

    @Override
    public void process(Record<String, Inbound<ActionProposal>> record) {
        lifecycle.atomically(record.value(), "admission", admitBody, record);
    }

    private void admit(Record<String, Inbound<ActionProposal>> record) {
        ActionProposal p = record.value().value();
        long now = lifecycle.now();
        Optional<Rejection> bad = admission.identity(record.key(), p);
        if (bad.isPresent()) {
            rejectUnheld(record, p, bad.get(), now);
            return;
        }
        String key = record.key();
        ActionState existing = lifecycle.load(key);
        if (existing != null) {
            redelivered(record.value(), existing, p, now);
            return;
        }
        ActionState.Action action = StateRecords.action(p);
        PolicySnapshot policy = lifecycle.policySnapshot(action);
        Optional<Rejection> notOwned = policy.ownership(p.getOrgId());
        if (notOwned.isPresent()) {
            refuseWithoutHolding(record, notOwned.get());
            return;
        }
        Optional<Rejection> refusal = admission.schema(p);
        JsonNode input = null; // parsed once: the input digest, the credential scan and the classifier use it
        byte[] canonicalInput = null; // canonicalised once: hashed for the input digest and inside the action digest
        if (refusal.isEmpty()) {
            Admission.CheckedInput checked = admission.input(p, policy.tool());
            refusal = checked.refusal();
            input = checked.parsed();
            canonicalInput = checked.canonical();
        }
        if (refusal.isEmpty()) {
            refusal = admission.credentials(p, input);
        }
        // the provider's classifier and validator read the tree the admission parsed, not the text again
        PolicyChecks.Verdict verdict = refusal.isPresent() ? null
                : PolicyChecks.check(action, policy, operations, input);
        if (verdict != null) {
            refusal = verdict.rejection();
        }
        if (refusal.isEmpty()) {
            // last: the only check that leaves the process (a bounded HEAD per attachment)
            refusal = attachments.check(p).map(reason -> new Rejection(ReasonCode.ATTACHMENT_INVALID, reason));
        }
        if (refusal.isPresent()) {
            Rejection r = refusal.get();
            // the input was verified (input != null): the receipt names the frozen action it refuses
            String refusedDigest = canonicalInput == null ? null
                    : Digests.actionDigestOfCanonicalInput(FrozenAction.of(p), canonicalInput);
            ActionState rejected = ActionState.fresh(action.withoutInput(), refusedDigest, now)
                    .to(Phase.REJECTED, r.code(), r.reason(), now);
            LOG.info("proposal {} rejected: {}", key, r.code());
            lifecycle.save(null, rejected);
            return;
        }
        String actionDigest = Digests.actionDigestOfCanonicalInput(FrozenAction.of(p), canonicalInput);
        ActionState admitted = ActionState.fresh(action, actionDigest, now);
        switch (ApprovalRoute.of(action, policy, verdict.trustedRead())) {
            case AUTO_APPROVE -> {
                // admission checked policy a moment ago in this same call: reserve directly. One receipt for this
                // record: DISPATCHING (the APPROVED step in between is not published, docs/contract.md section 4)
                lifecycle.reserve(null, admitted.to(Phase.APPROVED, null, null, now));
            }
            case HUMAN_APPROVAL -> lifecycle.save(null, admitted.to(Phase.WAITING_APPROVAL, null, null, now));
            case NO_ACTIVE_HUMAN_SOURCE -> lifecycle.save(null, ActionState.fresh(action.withoutInput(), actionDigest,
                    now).to(Phase.REJECTED, ReasonCode.NO_ACTIVE_HUMAN_SOURCE,
                    "origin request without a human and assistant message of an active, matching, chat-enabled "
                            + "origin", now));
            default -> throw new IllegalStateException("unhandled route");
        }
    }

    private void redelivered(Inbound<ActionProposal> inbound, ActionState existing, ActionProposal p, long now) {
        String offeredDigest = ActionIdentity.offeredDigest(p);
        if (ActionIdentity.same(existing, p, offeredDigest)) {
            String owner = lifecycle.policy().task(existing.action().taskId())
                    .map(t -> TaskOwnership.owner(t, lifecycle.config().taskDefaultOrg())).orElse(null);
            if (owner != null && !owner.equals(existing.action().orgId())) {
                // held since before tasks had owners, by an org that does not own the task: never answered
                notOwned.record();
                DeadLetters.send(context, inbound, ReasonCode.TASK_NOT_OWNED,
                        "the held action's org does not own its task; its receipt is not re-published");
                return;
            }
            lifecycle.publish(existing);
            return;
        }
        LOG.warn("identity conflict on {}: another frozen action under the same key ({} differs)", existing.key(),
                ActionIdentity.difference(existing, p, offeredDigest));
        lifecycle.forward(Sinks.CONFLICTS, existing.key(), StateRecords.conflict(existing, p, offeredDigest, now));
    }

    /**
     * A proposal whose org may not take this key (unknown task, a task of another org or of none): a dead letter and
     * the metric, never the action store and never a receipt under the key, so the task's owner can still propose.
     */
    private void refuseWithoutHolding(Record<String, Inbound<ActionProposal>> record, Rejection r) {
        notOwned.record();
        LOG.info("proposal {} refused without holding its key: {}", record.key(), r.code());
        DeadLetters.send(context, record.value(), r.code(), r.reason() + "; the key is not held");
    }

    private void rejectUnheld(Record<String, Inbound<ActionProposal>> record, ActionProposal p, Rejection r,
                              long now) {
        Optional<ActionKey> key = ActionKey.tryParse(record.key());
        if (key.isEmpty()) {
            DeadLetters.send(context, record.value().rawKey(), record.value().rawValue(), r.code(),
                    "record key is not a valid action key; " + r.reason());
            return;
        }
        if (TaskOwnership.refusal(p.getOrgId(), lifecycle.policy().task(key.get().taskId()),
                lifecycle.config().taskDefaultOrg()).isPresent()) {
            // a receipt under a key goes only to the org owning the key's task
            notOwned.record();
            DeadLetters.send(context, record.value(), r.code(), r.reason()
                    + "; the record key's task is not the proposer's org's: no receipt under it");
            return;
        }
        LOG.info("proposal {} rejected: {}", record.key(), r.code());
        lifecycle.forward(Sinks.RECEIPTS, record.key(),
                StateRecords.rejectedWithoutState(key.get().taskId(), key.get().toolCallId(), p, r, now));
    }
}
