package io.actiongate.gate.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.contract.ReasonCode;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateStores;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.policy.PolicyChecks;
import io.actiongate.policy.PolicyLookup;
import io.actiongate.policy.PolicySnapshot;
import io.actiongate.policy.Rejection;
import io.actiongate.serde.ReceiptHeaders;
import io.actiongate.serde.TraceHeaders;

/**
 * The transitions every processor shares, over the stores of one task: saving an action keeps its one timer and
 * the pending index in step and publishes a receipt (one per input record: the last state it reached); reserving an
 * attempt rechecks policy first (invariant 3). All calls are store lookups and forwards: nothing blocks the stream thread.
 *
 * <p>A processor handles each record {@link #atomically}: its store writes are journaled and its forwards held
 * back until it returns, so a record whose processing throws leaves no trace but a dead letter.
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
    private final KeyValueStore<String, String> timerIndex;
    private final KeyValueStore<String, String> pending;
    private final KeyValueStore<String, Long> decisionIds;
    private final KeyValueStore<String, DecisionClaim> decisionClaims;
    private final PolicyLookup policy;
    private final OperationClassifiers operations;
    private final Sensor illegalTransitions;
    /**
     * What the record being handled atomically did so far; null outside {@link #atomically} (tests). One object per
     * lifecycle, cleared after each record: the hot path allocates no journal per record.
     */
    private Unit unit;
    private final Unit reusable = new Unit();

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
        this.timerIndex = context.getStateStore(GateStores.TIMER_INDEX);
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
        return policy.snapshot(a);
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
        atomically(inbound, what, RUN, body);
    }

    private static final java.util.function.Consumer<Runnable> RUN = Runnable::run;

    /**
     * {@link #atomically(Inbound, String, Runnable)} of {@code body} applied to {@code argument}: a processor passes
     * a method reference it holds and the record, so nothing is allocated per record to run it.
     */
    public <T> void atomically(Inbound<?> inbound, String what, java.util.function.Consumer<T> body, T argument) {
        if (unit != null) {
            body.accept(argument); // already inside a unit
            return;
        }
        Unit current = reusable;
        current.clear();
        unit = current;
        try {
            body.accept(argument);
        } catch (RuntimeException e) {
            unit = null;
            current.rollback();
            current.clear();
            if (e instanceof KafkaException || e instanceof UnknownFormatException) {
                // not about this record (a store or client failure), or a format a newer gate wrote: the gate
                // must not move on past it, so nothing is dead-lettered (GateStreams decides what follows)
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
        try {
            current.flush(context);
        } finally {
            current.clear();
        }
    }

    /**
     * Whether {@code state} is a repeat-safe read on the current policy: no human approved it, its tool needs no
     * approval and passes every policy check, and the provider classifies it as a trusted read. Such an action may
     * be attempted again (same idempotency key) after its attempt provably did not happen.
     */
    public boolean repeatSafeRead(ActionState state) {
        return state.decisionId() == null
                && PolicyChecks.repeatSafeRead(state.action(), policySnapshot(state.action()), operations);
    }

    /** Deletes a timer entry of {@code store} ({@link #timers()} or {@link #timerIndex()}), journaled. */
    public void deleteTimer(KeyValueStore<String, String> store, String timerKey) {
        delete(store, timerKey);
    }

    /** The logged timers: decision id and claim purges (and action timers an earlier release wrote). */
    public KeyValueStore<String, String> timers() {
        return timers;
    }

    /** The in-memory index of live action timers. */
    public KeyValueStore<String, String> timerIndex() {
        return timerIndex;
    }

    /**
     * Puts the live timer of every held action into the in-memory index, from {@code gate-actions} (each action's
     * {@code timerKey}): run when a task starts, after its stores are restored and before it processes a record.
     * A settled action has no timer (the purge scan finds it). Returns how many timers it indexed.
     */
    public int rebuildTimerIndex() {
        int indexed = 0;
        try (KeyValueIterator<String, ActionState> it = actions.all()) {
            while (it.hasNext()) {
                ActionState state = it.next().value;
                if (state != null && state.timerKey() != null && !state.phase().terminal()) {
                    timerIndex.put(state.timerKey(), state.key());
                    indexed++;
                }
            }
        }
        return indexed;
    }

    /**
     * Up to {@code max} actions of {@code gate-actions} from {@code from} (inclusive; null: the first), in key order.
     */
    public List<ActionState> scanActions(String from, int max) {
        List<ActionState> out = new ArrayList<>(Math.min(max, 1024));
        try (KeyValueIterator<String, ActionState> it = actions.range(from, null)) {
            while (it.hasNext() && out.size() < max) {
                ActionState state = it.next().value;
                if (state != null) {
                    out.add(state);
                }
            }
        }
        return out;
    }

    /** Whether a settled action's dedupe window is over: it is no longer held, whether or not purged yet. */
    public boolean pastDedupeWindow(ActionState state, long now) {
        return state.phase().terminal() && state.dueAt() != null && state.dueAt() <= now;
    }

    public KeyValueStore<String, String> pending() {
        return pending;
    }

    /**
     * The action held under {@code key}, or null. A settled action past its dedupe window is not held any more,
     * even before the purge scan reaches it: dedupe ends exactly at the window, however late the scan is.
     */
    public ActionState load(String key) {
        if (key == null) {
            return null;
        }
        ActionState state = actions.get(key);
        if (unit != null && !unit.touched(actions, key)) {
            unit.loaded(key, state); // what the store holds: the journal's undo value, not read a second time
        }
        return state != null && pastDedupeWindow(state, now()) ? null : state;
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
            delete(timerIndex, previousTimer); // one an earlier release logged goes stale there
        }
        if (timer != null && !timer.equals(previousTimer)) {
            put(timerIndex, timer, next.key());
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

    /** The kind of the live timer a saved action in {@code phase} has, or null (also read by the serde). */
    static Timers.Kind timerKind(Phase phase) {
        return switch (phase) {
            case WAITING_APPROVAL -> Timers.Kind.APPROVAL_DEADLINE;
            case RETRY_WAIT -> Timers.Kind.RETRY;
            case DISPATCHING -> Timers.Kind.LEASE;
            // a settled action keeps its purge time in dueAt, but no timer: the purge scan finds it
            default -> null;
        };
    }

    /**
     * Publishes the receipt of {@code state}. Inside a unit (one input record) a later receipt for the same action
     * replaces an earlier one: one record publishes one receipt per action, the last state it reached.
     */
    public void publish(ActionState state) {
        Record<Object, Object> receipt = traced(new Record<Object, Object>(state.key(), StateRecords.receipt(state),
                now()), state);
        // the attachment cleaner skips an action without attachments instead of listing its prefix in the store
        ReceiptHeaders.writeAttachments(receipt.headers(), state.action().attachments().size());
        emit(receipt, Sinks.RECEIPTS);
    }

    /**
     * Rechecks policy (and the approval's expiry) for {@code state}, then reserves its next attempt; a failed
     * recheck ends the action (CANCELLED, EXPIRED or REJECTED with the reason code) instead.
     */
    public ActionState recheckAndReserve(ActionState prev, ActionState state) {
        long now = now();
        PolicyChecks.Verdict verdict = PolicyChecks.recheck(state.action(), state.approvalExpiresAt(),
                state.decisionId() != null, policySnapshot(state.action()), operations, now);
        if (verdict.refusal() != null) {
            Rejection r = verdict.refusal();
            return save(prev, state.to(phaseFor(r.code()), r.code(), r.reason(), now));
        }
        return reserve(prev, state);
    }

    /** The phase a refusal at a recheck leads to. */
    static Phase phaseFor(ReasonCode code) {
        return switch (code) {
            case TASK_CANCELLED, ORIGIN_CANCELLED -> Phase.CANCELLED;
            case APPROVAL_EXPIRED -> Phase.EXPIRED;
            default -> Phase.REJECTED;
        };
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
            if (Sinks.RECEIPTS.equals(sink)) {
                unit.dropReceipt(record.key());
            }
            unit.forward(record, sink);
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
        String key = state.key();
        if (unit != null && !unit.touched(actions, key)) {
            int loaded = unit.loadedIndex(key);
            unit.journal(actions, key, loaded >= 0 ? unit.loadedValue(loaded) : actions.get(key));
        }
        actions.put(key, state);
    }

    /** Remembers the value {@code key} had before this record touched it, once per store and key. */
    private <V> void journal(KeyValueStore<String, V> store, String key) {
        if (unit != null && !unit.touched(store, key)) {
            unit.journal(store, key, store.get(key));
        }
    }

    /**
     * What one record did so far: how to undo its store writes (the value each touched store key had before), the
     * actions it loaded, and its held-back forwards. Parallel lists, scanned linearly (a record touches a handful of
     * entries) and cleared for the next record, so a record allocates no journal of its own.
     */
    private static final class Unit {
        private final List<KeyValueStore<String, ?>> stores = new ArrayList<>();
        private final List<String> keys = new ArrayList<>();
        private final List<Object> before = new ArrayList<>();
        /** Actions loaded by this record before it wrote them: key and the stored value (null: none). */
        private final List<String> loadedKeys = new ArrayList<>();
        private final List<ActionState> loadedValues = new ArrayList<>();
        private final List<Record<Object, Object>> forwards = new ArrayList<>();
        private final List<String> sinks = new ArrayList<>();

        boolean touched(KeyValueStore<String, ?> store, String key) {
            for (int i = 0; i < keys.size(); i++) {
                if (stores.get(i) == store && keys.get(i).equals(key)) {
                    return true;
                }
            }
            return false;
        }

        <V> void journal(KeyValueStore<String, V> store, String key, V value) {
            stores.add(store);
            keys.add(key);
            before.add(value);
        }

        void loaded(String key, ActionState value) {
            if (loadedIndex(key) < 0) {
                loadedKeys.add(key);
                loadedValues.add(value);
            }
        }

        int loadedIndex(String key) {
            return loadedKeys.indexOf(key);
        }

        ActionState loadedValue(int index) {
            return loadedValues.get(index);
        }

        void forward(Record<Object, Object> record, String sink) {
            forwards.add(record);
            sinks.add(sink);
        }

        /** Drops a receipt for {@code key} held back earlier in this unit: a later state of the action replaces it. */
        void dropReceipt(Object key) {
            for (int i = forwards.size() - 1; i >= 0; i--) {
                if (Sinks.RECEIPTS.equals(sinks.get(i)) && key.equals(forwards.get(i).key())) {
                    forwards.remove(i);
                    sinks.remove(i);
                    return; // at most one is held per key
                }
            }
        }

        @SuppressWarnings("unchecked")
        void rollback() {
            for (int i = keys.size() - 1; i >= 0; i--) {
                KeyValueStore<String, Object> store = (KeyValueStore<String, Object>) stores.get(i);
                Object value = before.get(i);
                if (value == null) {
                    store.delete(keys.get(i));
                } else {
                    store.put(keys.get(i), value);
                }
            }
        }

        void flush(ProcessorContext<Object, Object> context) {
            for (int i = 0; i < forwards.size(); i++) {
                context.forward(forwards.get(i), sinks.get(i));
            }
        }

        void clear() {
            stores.clear();
            keys.clear();
            before.clear();
            loadedKeys.clear();
            loadedValues.clear();
            forwards.clear();
            sinks.clear();
        }
    }
}
