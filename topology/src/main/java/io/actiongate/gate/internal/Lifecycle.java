package io.actiongate.gate.internal;

import java.util.Optional;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.Stores;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.TraceHeaders;

/**
 * The transitions every processor shares, over the stores of one task: saving an action keeps its one timer and
 * the pending index in step and publishes a receipt (one per transition); reserving an attempt rechecks policy
 * first (invariant 3). All calls are store lookups and forwards: nothing blocks the stream thread.
 */
public final class Lifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

    private final ProcessorContext<Object, Object> context;
    private final GateConfig config;
    private final KeyValueStore<String, ActionState> actions;
    private final KeyValueStore<String, String> timers;
    private final KeyValueStore<String, String> pending;
    private final KeyValueStore<String, Long> decisionIds;
    private final PolicyView policy;

    public Lifecycle(ProcessorContext<Object, Object> context, GateConfig config) {
        this.context = context;
        this.config = config;
        this.actions = context.getStateStore(Stores.ACTIONS);
        this.timers = context.getStateStore(Stores.TIMERS);
        this.pending = context.getStateStore(Stores.PENDING);
        this.decisionIds = context.getStateStore(Stores.DECISION_IDS);
        ReadOnlyKeyValueStore<String, byte[]> policyStore = context.getStateStore(Stores.POLICY);
        this.policy = new PolicyView(policyStore);
    }

    public long now() {
        return context.currentSystemTimeMs();
    }

    public GateConfig config() {
        return config;
    }

    public PolicyView policy() {
        return policy;
    }

    public KeyValueStore<String, String> timers() {
        return timers;
    }

    public KeyValueStore<String, String> pending() {
        return pending;
    }

    public ActionState load(String key) {
        return key == null ? null : actions.get(key);
    }

    /**
     * The action that an outcome or reconciliation names by {@code taskId}/{@code toolCallId}, when that is also
     * the record's key and the gate holds it. Otherwise the record becomes a dead letter (INVALID_IDENTIFIER for
     * ids that are no action key, KEY_MISMATCH for anything else) and this returns null.
     */
    public ActionState loadNamed(String recordKey, Inbound<?> inbound, String taskId, String toolCallId,
                                 String what) {
        String key = ActionKey.isValid(taskId, toolCallId) ? taskId + ActionKey.SEPARATOR + toolCallId : null;
        ActionState state = key != null && key.equals(recordKey) ? load(key) : null;
        if (state == null) {
            DeadLetters.send(context, inbound.rawKey(), inbound.rawValue(),
                    key == null ? ReasonCode.INVALID_IDENTIFIER : ReasonCode.KEY_MISMATCH,
                    what + " names no action the gate holds under this key");
        }
        return state;
    }

    /** Removes a terminal action after its dedupe window. */
    public void purge(ActionState state) {
        actions.delete(state.key());
        pending.delete(state.key());
    }

    public boolean decisionUsed(String decisionId) {
        return decisionIds.get(decisionId) != null;
    }

    /** Records a decision id as used for the dedupe window. */
    public void useDecision(String decisionId) {
        long now = now();
        decisionIds.put(decisionId, now);
        timers.put(Timers.key(now + config.dedupeWindow().toMillis(), Timers.Kind.PURGE_DECISION, decisionId),
                decisionId);
    }

    public void forgetDecision(String decisionId) {
        decisionIds.delete(decisionId);
    }

    /**
     * Saves {@code next} (the successor of {@code prev}, which is null for a new action), moves its timer and
     * pending entry to match the new phase, and publishes its receipt.
     */
    public ActionState save(ActionState prev, ActionState next) {
        Long due = dueAt(prev, next);
        Timers.Kind kind = timerKind(next.phase());
        String timer = kind == null || due == null ? null : Timers.key(due, kind, next.key());
        String previousTimer = prev == null ? null : prev.timerKey();
        if (previousTimer != null && !previousTimer.equals(timer)) {
            timers.delete(previousTimer);
        }
        if (timer != null && !timer.equals(previousTimer)) {
            timers.put(timer, next.key());
        }
        ActionState saved = next.withTimer(timer, due);
        boolean wasPending = prev != null && prev.phase().undispatched();
        boolean isPending = saved.phase().undispatched();
        if (isPending && !wasPending) {
            String conversation = saved.action().conversationId();
            pending.put(saved.key(), conversation == null ? "" : conversation);
        } else if (wasPending && !isPending) {
            pending.delete(saved.key());
        }
        actions.put(saved.key(), saved);
        publish(saved);
        LOG.debug("action {} -> {} {}", saved.key(), saved.phase(), saved.reasonCode() == null ? "" : saved.reasonCode());
        return saved;
    }

    private Long dueAt(ActionState prev, ActionState next) {
        boolean samePhase = prev != null && prev.phase() == next.phase();
        return switch (next.phase()) {
            case WAITING_APPROVAL -> samePhase ? prev.dueAt() : next.updatedAt() + config.approvalTimeout().toMillis();
            case RETRY_WAIT -> next.dueAt();
            case DISPATCHING -> next.lastAttempt().leaseExpiresAt() + config.dispatchTimeout().toMillis();
            case APPROVED, UNKNOWN -> null;
            default -> samePhase ? prev.dueAt() : next.updatedAt() + config.dedupeWindow().toMillis();
        };
    }

    private static Timers.Kind timerKind(Phase phase) {
        return switch (phase) {
            case WAITING_APPROVAL -> Timers.Kind.APPROVAL_DEADLINE;
            case RETRY_WAIT -> Timers.Kind.RETRY;
            case DISPATCHING -> Timers.Kind.LEASE;
            case APPROVED, UNKNOWN -> null;
            default -> Timers.Kind.PURGE_ACTION;
        };
    }

    /** Publishes the receipt of {@code state} (also for an intermediate state that is not saved). */
    public void publish(ActionState state) {
        context.forward(traced(new Record<Object, Object>(state.key(), Records.receipt(state), now()), state),
                Sinks.RECEIPTS);
    }

    /**
     * Rechecks policy (and the approval's expiry) for {@code state}, then reserves its next attempt; a failed
     * recheck ends the action (CANCELLED, EXPIRED or REJECTED with the reason code) instead.
     */
    public ActionState recheckAndReserve(ActionState prev, ActionState state) {
        long now = now();
        Optional<Rejection> refusal = PolicyChecks.recheck(state, policy, now);
        if (refusal.isPresent()) {
            Rejection r = refusal.get();
            return save(prev, state.to(PolicyChecks.phaseFor(r.code()), r.code().name(), r.reason(), now));
        }
        return reserve(prev, state);
    }

    /** Reserves the next attempt with a lease and publishes it to the attempts topic: DISPATCHING. */
    public ActionState reserve(ActionState prev, ActionState state) {
        long now = now();
        int attempt = state.attemptCount() + 1;
        ActionState.AttemptRecord record = ActionState.AttemptRecord.reserved(attempt, now,
                now + config.leaseDuration().toMillis());
        ActionState next = state.withAttempt(record).to(Phase.DISPATCHING, null, null, now);
        AttemptReservation reservation = Records.reservation(next, record);
        context.forward(traced(new Record<Object, Object>(next.key(), reservation, now), next), Sinks.ATTEMPTS);
        LOG.debug("action {} reserved attempt {}", next.key(), attempt);
        return save(prev, next);
    }

    /** UNKNOWN: the receipt plus an UnknownOutcome for the reconciler. Nothing re-dispatches from here. */
    public ActionState unknown(ActionState prev, ActionState state, ReasonCode code, String reason) {
        long now = now();
        ActionState next = save(prev, state.to(Phase.UNKNOWN, code == null ? null : code.name(), reason, now));
        context.forward(traced(new Record<Object, Object>(next.key(), Records.unknownOutcome(next, code, reason, now),
                now), next), Sinks.UNKNOWN_OUTCOMES);
        LOG.info("action {} outcome unknown ({})", next.key(), code == null ? "reported" : code);
        return next;
    }

    /** {@code record} with the action's trace headers (W3C), so its trace continues downstream. */
    private static Record<Object, Object> traced(Record<Object, Object> record, ActionState state) {
        TraceHeaders.write(record.headers(), state.trace());
        return record;
    }

    public void forward(String sink, Object key, Object value) {
        context.forward(new Record<Object, Object>(key, value, now()), sink);
    }
}
