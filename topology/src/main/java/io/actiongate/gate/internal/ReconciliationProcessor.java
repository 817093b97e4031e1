package io.actiongate.gate.internal;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Reconciliation;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.GateConfig;
import io.actiongate.key.ActionKey;

/**
 * The reconciler's verdict on an UNKNOWN action's last attempt: EFFECT_CONFIRMED settles SUCCEEDED, NO_EFFECT
 * settles NOT_APPLIED (a new effect needs a fresh proposal), STILL_UNKNOWN leaves it UNKNOWN for an owner.
 * The attempts' original details stay in the receipt (invariant 6).
 */
public final class ReconciliationProcessor implements Processor<String, Inbound<Reconciliation>, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(ReconciliationProcessor.class);

    private final GateConfig config;
    private ProcessorContext<Object, Object> context;
    private Lifecycle lifecycle;

    public ReconciliationProcessor(GateConfig config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.lifecycle = new Lifecycle(context, config);
    }

    @Override
    public void process(Record<String, Inbound<Reconciliation>> record) {
        Reconciliation r = record.value().value();
        String key = ActionKey.isValid(r.getTaskId(), r.getToolCallId())
                ? r.getTaskId() + ActionKey.SEPARATOR + r.getToolCallId() : null;
        ActionState state = key != null && key.equals(record.key()) ? lifecycle.load(key) : null;
        if (state == null) {
            DeadLetters.send(context, record.value().rawKey(), record.value().rawValue(),
                    key == null ? ReasonCode.INVALID_IDENTIFIER : ReasonCode.KEY_MISMATCH,
                    "reconciliation names no action the gate holds under this key");
            return;
        }
        if (state.phase() != Phase.UNKNOWN || state.lastAttempt() == null
                || state.lastAttempt().attempt() != r.getAttempt()) {
            LOG.debug("action {}: reconciliation of attempt {} is stale or a duplicate; ignored", key, r.getAttempt());
            return;
        }
        long now = lifecycle.now();
        switch (r.getVerdict()) {
            case EFFECT_CONFIRMED -> lifecycle.save(state, state
                    .withResolution("RECONCILER", r.getProviderReceiptId(), null)
                    .to(Phase.SUCCEEDED, state.reasonCode(), "reconciler confirmed the effect", now));
            case NO_EFFECT -> lifecycle.save(state, state.withResolution("RECONCILER", null, null)
                    .to(Phase.NOT_APPLIED, state.reasonCode(), "reconciler found no effect", now));
            case STILL_UNKNOWN -> LOG.info("action {} still unknown after {} lookups", key, r.getLookups());
            default -> throw new IllegalStateException("unhandled verdict");
        }
    }
}
