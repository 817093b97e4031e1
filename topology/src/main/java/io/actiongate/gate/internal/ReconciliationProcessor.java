package io.actiongate.gate.internal;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Reconciliation;
import io.actiongate.gate.GateConfig;

/**
 * The reconciler's verdict on an UNKNOWN action's last attempt: EFFECT_CONFIRMED settles SUCCEEDED, NO_EFFECT
 * settles NOT_APPLIED (a new effect needs a fresh proposal), STILL_UNKNOWN leaves it UNKNOWN for an owner.
 * The attempts' original details stay in the receipt (invariant 6).
 */
public final class ReconciliationProcessor implements Processor<String, Inbound<Reconciliation>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ReconciliationProcessor.class);

    private final GateConfig config;
    private Lifecycle lifecycle;

    public ReconciliationProcessor(GateConfig config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.lifecycle = new Lifecycle(context, config);
    }

    @Override
    public void process(Record<String, Inbound<Reconciliation>> record) {
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
                    .withResolution("RECONCILER", r.getProviderReceiptId(), null)
                    .to(Phase.SUCCEEDED, state.reasonCode(), "reconciler confirmed the effect", now));
            case NO_EFFECT -> lifecycle.save(state, state.withResolution("RECONCILER", null, null)
                    .to(Phase.NOT_APPLIED, state.reasonCode(), "reconciler found no effect", now));
            case STILL_UNKNOWN -> LOG.info("action {} still unknown after {} lookups", state.key(), r.getLookups());
            default -> throw new IllegalStateException("unhandled verdict");
        }
    }
}
