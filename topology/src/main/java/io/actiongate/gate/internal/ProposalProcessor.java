package io.actiongate.gate.internal;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

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

/**
 * A proposal: identity (redelivery or conflict), admission, the provider's classification, routing. Admitted
 * actions are either reserved at once (trusted read with approval NONE, active origin request) or wait for a signed
 * approval. The policy is read once per record ({@link PolicySnapshot}) and every decision is taken on that
 * snapshot.
 *
 * <p>Records whose ids are invalid or differ from the key are not held (holding them would let a bad record
 * occupy a key): when the record key is itself a valid action key, a REJECTED receipt goes out under it;
 * otherwise the record is a dead letter, since no receipt key could name it.
 */
public final class ProposalProcessor implements Processor<String, Inbound<ActionProposal>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ProposalProcessor.class);

    private final GateConfig config;
    private final Admission admission;
    private final OperationClassifiers operations;
    private final AttachmentCheck attachments;
    private ProcessorContext<Object, Object> context;
    private Lifecycle lifecycle;

    public ProposalProcessor(GateConfig config, CredentialCheck credentials, OperationClassifiers operations) {
        this(config, credentials, operations, AttachmentCheck.WITHOUT_STORAGE);
    }

    public ProposalProcessor(GateConfig config, CredentialCheck credentials, OperationClassifiers operations,
                             AttachmentCheck attachments) {
        this.config = config;
        this.admission = new Admission(config.summaryMaxChars(), config.maxInputBytesDefault(), credentials);
        this.operations = operations;
        this.attachments = attachments;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.lifecycle = new Lifecycle(context, config, operations);
    }

    @Override
    public void process(Record<String, Inbound<ActionProposal>> record) {
        lifecycle.atomically(record.value(), "admission", () -> admit(record));
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
            redelivered(existing, p, now);
            return;
        }
        ActionState.Action action = StateRecords.action(p);
        PolicySnapshot policy = lifecycle.policy().snapshot(action);
        Optional<Rejection> refusal = admission.schema(p);
        JsonNode input = null; // parsed once: the input digest, the credential scan and the action digest use it
        if (refusal.isEmpty()) {
            Admission.CheckedInput checked = admission.input(p, policy.tool());
            refusal = checked.refusal();
            input = checked.parsed();
        }
        if (refusal.isEmpty()) {
            refusal = admission.credentials(p, input);
        }
        PolicyChecks.Verdict verdict = refusal.isPresent() ? null : PolicyChecks.check(action, policy, operations);
        if (verdict != null) {
            refusal = verdict.rejection();
        }
        if (refusal.isEmpty()) {
            // last: the only check that leaves the process (a bounded HEAD per attachment)
            refusal = attachments.check(p).map(reason -> new Rejection(ReasonCode.ATTACHMENT_INVALID, reason));
        }
        if (refusal.isPresent()) {
            Rejection r = refusal.get();
            ActionState rejected = ActionState.fresh(action.withoutInput(), null, now)
                    .to(Phase.REJECTED, r.code(), r.reason(), now);
            LOG.info("proposal {} rejected: {}", key, r.code());
            lifecycle.save(null, rejected);
            return;
        }
        String actionDigest = Digests.actionDigest(FrozenAction.of(p), input);
        ActionState admitted = ActionState.fresh(action, actionDigest, now);
        switch (Classifier.classify(action, policy, verdict.trustedRead())) {
            case AUTO_APPROVE -> {
                ActionState approved = admitted.to(Phase.APPROVED, null, null, now);
                lifecycle.publish(approved);
                // admission checked policy a moment ago in this same call: reserve directly
                lifecycle.reserve(null, approved);
            }
            case HUMAN_APPROVAL -> lifecycle.save(null, admitted.to(Phase.WAITING_APPROVAL, null, null, now));
            case NO_ACTIVE_HUMAN_SOURCE -> lifecycle.save(null, ActionState.fresh(action.withoutInput(), actionDigest,
                    now).to(Phase.REJECTED, ReasonCode.NO_ACTIVE_HUMAN_SOURCE,
                    "origin request without a human and assistant message of an active, matching, chat-enabled "
                            + "origin", now));
            default -> throw new IllegalStateException("unhandled route");
        }
    }

    private void redelivered(ActionState existing, ActionProposal p, long now) {
        ActionState.Action a = existing.action();
        boolean same = a.provider().equals(p.getProvider()) && a.toolName().equals(p.getToolName())
                && a.operation().equals(p.getOperation()) && a.inputDigest().equals(p.getInputDigest());
        if (same) {
            lifecycle.publish(existing);
            return;
        }
        LOG.warn("identity conflict on {}: another tool or input under the same key", existing.key());
        lifecycle.forward(Sinks.CONFLICTS, existing.key(), StateRecords.conflict(existing, p, now));
    }

    private void rejectUnheld(Record<String, Inbound<ActionProposal>> record, ActionProposal p, Rejection r,
                              long now) {
        Optional<ActionKey> key = ActionKey.tryParse(record.key());
        if (key.isEmpty()) {
            DeadLetters.send(context, record.value().rawKey(), record.value().rawValue(), r.code(),
                    "record key is not a valid action key; " + r.reason());
            return;
        }
        LOG.info("proposal {} rejected: {}", record.key(), r.code());
        lifecycle.forward(Sinks.RECEIPTS, record.key(),
                StateRecords.rejectedWithoutState(key.get().taskId(), key.get().toolCallId(), p, r, now));
    }
}
