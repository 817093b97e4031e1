package io.actiongate.gate.internal;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Reconciliation;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.policy.PolicyChanges;

/**
 * The reconciler's verdict on an UNKNOWN action's last attempt: EFFECT_CONFIRMED settles SUCCEEDED, NO_EFFECT
 * settles NOT_APPLIED (a new effect needs a fresh proposal), STILL_UNKNOWN leaves it UNKNOWN for an owner. A
 * repeat-safe read ({@link Lifecycle#repeatSafeRead}) proven NO_EFFECT instead waits for its next attempt (same
 * idempotency key) while the attempt budget lasts: a read that provably did not happen may run again.
 * The attempts' original details stay in the receipt (invariant 6).
 */
public final class ReconciliationProcessor implements Processor<String, Inbound<Reconciliation>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ReconciliationProcessor.class);

    private final GateConfig config;
    private final PolicyChanges policyChanges;
    private final OperationClassifiers operations;
    private Lifecycle lifecycle;
    /** Held once: handing it and the record to {@link Lifecycle#atomically} allocates nothing per record. */
    private final java.util.function.Consumer<Record<String, Inbound<Reconciliation>>> reconcileBody = this::reconcile;

    public ReconciliationProcessor(GateConfig config, OperationClassifiers operations) {
        this(config, operations, PolicyChanges.uncached());
    }

    public ReconciliationProcessor(GateConfig config, OperationClassifiers operations, PolicyChanges policyChanges) {
        this.config = config;
        this.policyChanges = policyChanges;
        this.operations = operations;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.lifecycle = new Lifecycle(context, config, operations, policyChanges);
    }

    @Override
    public void process(Record<String, Inbound<Reconciliation>> record) {
        lifecycle.atomically(record.value(), "reconciliation", reconcileBody, record);
    }

    private void reconcile(Record<String, Inbound<Reconciliation>> record) {
        Reconciliation r = record.value().value();
        ActionState state = lifecycle.loadNamed(record.key(), record.value(), r.getTaskId(), r.getToolCallId(),
                "reconciliation");
        if (state == null) {
            return;
        }
        if (state.phase() != Phase.UNKNOWN || state.lastAttempt() == null
                || state.lastAttempt().attempt() != r.getAttempt()) {
            LOG.debug("action {}: reconciliation of attempt {} is stale or a duplicate; ignored", state.key(), r.getAttempt());
            return;
        }
        long now = lifecycle.now();
        switch (r.getVerdict()) {
            case EFFECT_CONFIRMED -> lifecycle.save(state, state
                    .withResolution(ActionState.Resolver.RECONCILER, r.getProviderReceiptId(), null)
                    .to(Phase.SUCCEEDED, state.reasonCode(), "reconciler confirmed the effect", now));
            case NO_EFFECT -> {
                if (state.attemptCount() < config.retryMaxAttempts() && lifecycle.repeatSafeRead(state)) {
                    lifecycle.save(state, state.withTimer(null, now + config.retryBackoff().toMillis())
                            .to(Phase.RETRY_WAIT, null, "reconciler found no effect; attempt "
                                    + (state.attemptCount() + 1) + " scheduled", now));
                } else {
                    lifecycle.save(state, state.withResolution(ActionState.Resolver.RECONCILER, null, null)
                            .to(Phase.NOT_APPLIED, state.reasonCode(), "reconciler found no effect", now));
                }
            }
            case STILL_UNKNOWN -> LOG.info("action {} still unknown after {} lookups", state.key(), r.getLookups());
            default -> throw new IllegalStateException("unhandled verdict");
        }
    }
}
