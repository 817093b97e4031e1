package io.actiongate.gate.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateStores;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.policy.PolicyLookup;
import io.actiongate.policy.PolicySnapshot;
import io.actiongate.policy.Rejection;
import io.actiongate.policy.TrustedRead;
import io.actiongate.serde.TraceHeaders;

/**
 * The transitions every processor shares, over the stores of one task: saving an action keeps its one timer and
 * the pending index in step and publishes a receipt (one per transition); reserving an attempt rechecks policy
 * first (invariant 3). All calls are store lookups and forwards: nothing blocks the stream thread.
 *
 * <p>A processor handles each record {@link #atomically}: its store writes are journaled and its forwards held
 * back until it returns, so a record whose processing throws leaves no trace but a dead letter (issue 8, fix 3).
 */
public final class Lifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

    /** Metric group and name of the count of refused transitions (one metric per task, tag {@code task-id}). */
    public static final String METRIC_GROUP = "actiongate-gate";
    public static final String ILLEGAL_TRANSITIONS = "illegal-transitions-total";

    private final ProcessorContext<Object, Object> context;
    private final GateConfig config;
    private final KeyValueStore<String, ActionState> actions;
    private final KeyValueStore<String, String> timers;
    private final KeyValueStore<String, String> pending;
    private final KeyValueStore<String, Long> decisionIds;
    private final KeyValueStore<String, DecisionClaim> decisionClaims;
    private final PolicyLookup policy;
    private final OperationClassifiers operations;
    private final Sensor illegalTransitions;
    /** The record being handled atomically, or null (punctuators, tests). */
    private Unit unit;

    /** A lifecycle whose rechecks know no provider: every reservation is refused (fail closed). */
    public Lifecycle(ProcessorContext<Object, Object> context, GateConfig config) {
        this(context, config, OperationClassifiers.NONE);
    }

    /** A lifecycle that reads the policy store on every lookup (no shared snapshot). */
    public Lifecycle(ProcessorContext<Object, Object> context, GateConfig config, OperationClassifiers operations) {
        this(context, config, operations, PolicyChanges.uncached());
    }

    /** {@code policyChanges}: the gate's policy snapshot, invalidated by the global store's processor. */
    public Lifecycle(ProcessorContext<Object, Object> context, GateConfig config, OperationClassifiers operations,
                     PolicyChanges policyChanges) {
        this.context = context;
        this.config = config;
        this.operations = operations;
        this.actions = context.getStateStore(GateStores.ACTIONS);
        this.timers = context.getStateStore(GateStores.TIMERS);
        this.pending = context.getStateStore(GateStores.PENDING);
        this.decisionIds = context.getStateStore(GateStores.DECISION_IDS);
        this.decisionClaims = context.getStateStore(GateStores.DECISION_CLAIMS);
        ReadOnlyKeyValueStore<String, byte[]> policyStore = context.getStateStore(GateStores.POLICY);
        this.policy = new PolicyLookup(policyStore, config.taskDefaultOrg(), policyChanges);
        String task = context.taskId().toString();
        this.illegalTransitions = context.metrics().addSensor("actiongate-illegal-transitions-" + task,
                Sensor.RecordingLevel.INFO);
        illegalTransitions.add(new MetricName(ILLEGAL_TRANSITIONS, METRIC_GROUP,
                "Moves the lifecycle refused (the record was undone and dead-lettered, or the timer kept)",
                Map.of("task-id", task)), new CumulativeCount());
    }

    public long now() {
        return context.currentSystemTimeMs();
    }

    public GateConfig config() {
        return config;
    }

    public PolicyLookup policy() {
        return policy;
    }

    /** Every policy record {@code a} depends on, each read once: decide a record on this, not on lookups. */
    public PolicySnapshot policySnapshot(ActionState.Action a) {
        return policy.snapshot(a.provider(), a.toolName(), a.orgId(), a.profileId(), a.taskId(), a.conversationId());
    }

    public OperationClassifiers operations() {
        return operations;
    }

    /**
     * Runs {@code body} for one input record as a unit. When it returns, its forwards go out. When it throws
     * something about this record (any exception but Kafka's own), its store writes are undone, nothing it
     * forwarded goes out, and the record becomes a dead letter ({@code SCHEMA_INVALID}, naming the failure's
     * class, never the payload): the partition keeps moving. A {@link KafkaException} (a store or client failure,
     * not about this record) is rethrown after the undo: the stream thread is replaced and the record processed
     * again from the last commit, so no work is dropped.
     */
    public void atomically(Inbound<?> inbound, String what, Runnable body) {
        if (unit != null) {
            body.run(); // already inside a unit
            return;
        }
        Unit current = new Unit();
        unit = current;
        try {
            body.run();
        } catch (RuntimeException e) {
            unit = null;
            current.rollback();
            if (e instanceof KafkaException) {
                throw e;
            }
            if (e instanceof IllegalTransitionException illegal) {
                illegalTransitions.record();
                LOG.error("{} refused: {} -> {} is not a move the lifecycle allows; nothing of it applied{}", what,
                        illegal.from(), illegal.to(), inbound == null ? "" : ", the record is dead-lettered");
                if (inbound != null) {
                    DeadLetters.send(context, inbound.rawKey(), inbound.rawValue(), ReasonCode.SCHEMA_INVALID,
                            what + " refused: illegal transition " + illegal.from() + " -> " + illegal.to()
                                    + "; the record was not applied");
                }
                return;
            }
            // the message may quote the record: name the class and where it was thrown, never the text
            StackTraceElement at = e.getStackTrace().length == 0 ? null : e.getStackTrace()[0];
            LOG.error("{} failed ({} at {}); nothing of it applied{}", what, e.getClass().getName(), at,
                    inbound == null ? "" : ", the record is dead-lettered");
            if (inbound != null) {
                DeadLetters.send(context, inbound.rawKey(), inbound.rawValue(), ReasonCode.SCHEMA_INVALID,
                        what + " failed (" + e.getClass().getSimpleName() + "); the record was not applied");
            }
            return;
        } finally {
            unit = null;
        }
        current.flush(context);
    }

    /**
     * Whether {@code state} is a repeat-safe read on the current policy: no human approved it, its tool needs no
     * approval and passes every policy check, and the provider classifies it as a trusted read. Such an action may
     * be attempted again (same idempotency key) after its attempt provably did not happen.
     */
    public boolean repeatSafeRead(ActionState state) {
        if (state.decisionId() != null || state.action().inputJson() == null) {
            return false;
        }
        PolicySnapshot snapshot = policySnapshot(state.action());
        PolicyChecks.Verdict verdict = PolicyChecks.check(state.action(), snapshot, operations);
        return verdict.refusal() == null
                && snapshot.tool().map(t -> TrustedRead.needsNobody(t, verdict.trustedRead())).orElse(false);
    }

    /** Deletes a timer entry (journaled). */
    public void deleteTimer(String timerKey) {
        delete(timers, timerKey);
    }

    public KeyValueStore<String, String> timers() {
        return timers;
    }

    public KeyValueStore<String, String> pending() {
        return pending;
    }

    public ActionState load(String key) {
        if (key == null) {
            return null;
        }
        ActionState state = actions.get(key);
        if (unit != null && !unit.touched.contains(actions.name() + '\u0000' + key)) {
            unit.loaded.put(key, state); // what the store holds: the journal's undo value, not read a second time
        }
        return state;
    }

    /**
     * The action that an outcome or reconciliation names by {@code taskId}/{@code toolCallId}, when that is also
     * the record's key and the gate holds it. Otherwise the record becomes a dead letter (INVALID_IDENTIFIER for
     * ids that are no action key, KEY_MISMATCH for anything else) and this returns null.
     */
    public ActionState loadNamed(String recordKey, Inbound<?> inbound, String taskId, String toolCallId,
                                 String what) {
        String key = ActionKey.isValid(taskId, toolCallId) ? ActionKey.format(taskId, toolCallId) : null;
        ActionState state = key != null && key.equals(recordKey) ? load(key) : null;
        if (state == null) {
            DeadLetters.send(context, inbound,
                    key == null ? ReasonCode.INVALID_IDENTIFIER : ReasonCode.KEY_MISMATCH,
                    what + " names no action the gate holds under this key");
        }
        return state;
    }

    /** Removes a terminal action after its dedupe window. */
    public void purge(ActionState state) {
        delete(actions, state.key());
        delete(pending, state.key());
    }

    public boolean decisionUsed(String decisionId) {
        return decisionIds.get(decisionId) != null;
    }

    /** Records a decision id as used for the dedupe window. */
    public void useDecision(String decisionId) {
        long now = now();
        put(decisionIds, decisionId, now);
        put(timers, Timers.key(now + config.dedupeWindow().toMillis(), Timers.Kind.PURGE_DECISION, decisionId),
                decisionId);
    }

    public void forgetDecision(String decisionId) {
        delete(decisionIds, decisionId);
    }

    /** Forgets which signed decision owns {@code decisionId} (its claim's time is up). */
    public void forgetClaim(String decisionId) {
        decisionClaims.delete(decisionId);
    }

    /**
     * Saves {@code next} (the successor of {@code prev}, which is null for a new action), moves its timer and
     * pending entry to match the new phase, and publishes its receipt.
     */
    public ActionState save(ActionState prev, ActionState next) {
        if (next.phase() == Phase.NEW) {
            throw new IllegalTransitionException(Phase.NEW, Phase.NEW, "a NEW action is never saved");
        }
        Long due = dueAt(prev, next);
        Timers.Kind kind = timerKind(next.phase());
        String timer = kind == null || due == null ? null : Timers.key(due, kind, next.key());
        String previousTimer = prev == null ? null : prev.timerKey();
        if (previousTimer != null && !previousTimer.equals(timer)) {
            delete(timers, previousTimer);
        }
        if (timer != null && !timer.equals(previousTimer)) {
            put(timers, timer, next.key());
        }
        ActionState saved = next.withTimer(timer, due);
        boolean wasPending = prev != null && prev.phase().undispatched();
        boolean isPending = saved.phase().undispatched();
        if (isPending && !wasPending) {
            String conversation = saved.action().conversationId();
            put(pending, saved.key(), conversation == null ? "" : conversation);
        } else if (wasPending && !isPending) {
            delete(pending, saved.key());
        }
        putAction(saved);
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
        emit(traced(new Record<Object, Object>(state.key(), StateRecords.receipt(state), now()), state),
                Sinks.RECEIPTS);
    }

    /**
     * Rechecks policy (and the approval's expiry) for {@code state}, then reserves its next attempt; a failed
     * recheck ends the action (CANCELLED, EXPIRED or REJECTED with the reason code) instead.
     */
    public ActionState recheckAndReserve(ActionState prev, ActionState state) {
        long now = now();
        PolicyChecks.Verdict verdict = PolicyChecks.recheck(state, policySnapshot(state.action()), operations, now);
        if (verdict.refusal() != null) {
            Rejection r = verdict.refusal();
            return save(prev, state.to(PolicyChecks.phaseFor(r.code()), r.code(), r.reason(), now));
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
        AttemptReservation reservation = StateRecords.reservation(next, record);
        emit(traced(new Record<Object, Object>(next.key(), reservation, now), next), Sinks.ATTEMPTS);
        LOG.debug("action {} reserved attempt {}", next.key(), attempt);
        return save(prev, next);
    }

    /** UNKNOWN: the receipt plus an UnknownOutcome for the reconciler. Nothing re-dispatches from here. */
    public ActionState unknown(ActionState prev, ActionState state, ReasonCode code, String reason) {
        long now = now();
        ActionState next = save(prev, state.to(Phase.UNKNOWN, code, reason, now));
        emit(traced(new Record<Object, Object>(next.key(), StateRecords.unknownOutcome(next, code, reason, now), now),
                next), Sinks.UNKNOWN_OUTCOMES);
        LOG.info("action {} outcome unknown ({})", next.key(), code == null ? "reported" : code);
        return next;
    }

    /** {@code record} with the action's trace headers (W3C), so its trace continues downstream. */
    private static Record<Object, Object> traced(Record<Object, Object> record, ActionState state) {
        TraceHeaders.write(record.headers(), state.trace());
        return record;
    }

    public void forward(String sink, Object key, Object value) {
        emit(new Record<Object, Object>(key, value, now()), sink);
    }

    private void emit(Record<Object, Object> record, String sink) {
        if (unit != null) {
            unit.forwards.add(new Forward(record, sink));
        } else {
            context.forward(record, sink);
        }
    }

    private <V> void put(KeyValueStore<String, V> store, String key, V value) {
        journal(store, key);
        store.put(key, value);
    }

    private <V> void delete(KeyValueStore<String, V> store, String key) {
        journal(store, key);
        store.delete(key);
    }

    /**
     * Saves an action. An action this record loaded is not read (and decoded) again for the journal: until its
     * first write the store still holds what {@link #load} returned.
     */
    private void putAction(ActionState state) {
        journal(actions, state.key(), k -> unit.loaded.containsKey(k) ? unit.loaded.get(k) : actions.get(k));
        actions.put(state.key(), state);
    }

    private <V> void journal(KeyValueStore<String, V> store, String key) {
        journal(store, key, store::get);
    }

    /** Remembers the value {@code key} had ({@code current}) before this record touched it, once per store and key. */
    private <V> void journal(KeyValueStore<String, V> store, String key, Function<String, V> current) {
        if (unit != null && unit.touched.add(store.name() + '\u0000' + key)) {
            V before = current.apply(key);
            unit.undo.add(() -> {
                if (before == null) {
                    store.delete(key);
                } else {
                    store.put(key, before);
                }
            });
        }
    }

    private record Forward(Record<Object, Object> record, String sink) {
    }

    /** What one record did so far: how to undo its store writes, and its held-back forwards. */
    private static final class Unit {
        final Set<String> touched = new HashSet<>();
        /** Actions loaded by this record before it wrote them: key to the stored value (null: none). */
        final Map<String, ActionState> loaded = new HashMap<>();
        final List<Runnable> undo = new ArrayList<>();
        final List<Forward> forwards = new ArrayList<>();

        void rollback() {
            for (int i = undo.size() - 1; i >= 0; i--) {
                undo.get(i).run();
            }
        }

        void flush(ProcessorContext<Object, Object> context) {
            for (Forward f : forwards) {
                context.forward(f.record(), f.sink());
            }
        }
    }
}
