package io.actiongate.gate.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyChanges;

/**
 * The gate's clocks, driven by wall-clock punctuators (they fire also when no records arrive):
 * <ul>
 *   <li>every {@code gate.punctuate.interval}: the due prefix of the in-memory {@code gate-timer-index} (approval
 *       deadlines, retries, lease expiry; rebuilt from {@code gate-actions} when the task starts) and of the logged
 *       {@code gate-timers} (decision id and claim purges), at most {@code gate.timer.batch.max} per tick;</li>
 *   <li>the purge scan: settled actions have no timer. Once per time bucket ({@link #purgeBucketMillis}) a pass
 *       walks {@code gate-actions} in key order, {@value #PURGE_BATCH_MAX} entries per tick at most, and removes
 *       the settled actions past their dedupe window. Dedupe itself ends exactly at the window ({@link
 *       Lifecycle#load}); the scan only frees the space, at most one bucket plus one pass late;</li>
 *   <li>every {@code gate.cancel.sweep.interval}: the pending (accepted, undispatched) actions against the
 *       current task and origin status, because a policy change in the global table triggers nothing per action.
 *   </li>
 * </ul>
 * It receives no records itself.
 */
public final class TimerProcessor implements Processor<Object, Object, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(TimerProcessor.class);

    private final GateConfig config;
    private final PolicyChanges policyChanges;
    private final OperationClassifiers operations;
    /** Most actions the purge scan reads per punctuation. */
    static final int PURGE_BATCH_MAX = 1000;

    private Lifecycle lifecycle;
    /** Held once: handing it and the action to {@link Lifecycle#atomically} allocates nothing per purged action. */
    private java.util.function.Consumer<ActionState> purgeBody;
    private String sweepCursor;
    /** Where the running purge pass continues (null: at the first key), or no pass runs ({@code purging} false). */
    private String purgeCursor;
    private boolean purging;
    /** The time bucket whose pass started last; a new pass starts when the bucket changes. */
    private long purgeBucket = -1;

    public TimerProcessor(GateConfig config, OperationClassifiers operations) {
        this(config, operations, PolicyChanges.uncached());
    }

    public TimerProcessor(GateConfig config, OperationClassifiers operations, PolicyChanges policyChanges) {
        this.config = config;
        this.policyChanges = policyChanges;
        this.operations = operations;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.lifecycle = new Lifecycle(context, config, operations, policyChanges);
        this.purgeBody = lifecycle::purge;
        // the stores are restored before a processor is initialised, and no record is processed before this returns
        int indexed = lifecycle.rebuildTimerIndex();
        LOG.info("task {}: {} action timers indexed from {}", context.taskId(), indexed,
                io.actiongate.gate.GateStores.ACTIONS);
        context.schedule(config.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME, now -> {
            if (fireDue(now)) {
                // a fired timer wrote a receipt or a reservation someone waits for: commit now, not at the interval
                context.commit();
            }
            purgeSettled(now);
        });
        context.schedule(config.cancelSweepInterval(), PunctuationType.WALL_CLOCK_TIME, now -> sweepCancelled());
    }

    @Override
    public void process(Record<Object, Object> record) {
        // timers only: nothing is forwarded here
    }

    /**
     * Fires every timer due at {@code now}: the action timers first, then the logged ones, one budget for both.
     * Returns whether any action timer was due.
     */
    boolean fireDue(long now) {
        int max = config.timerBatchMax();
        int budget = fireDue(lifecycle.timerIndex(), now, max);
        fireDue(lifecycle.timers(), now, budget);
        return budget < max;
    }

    /** Fires at most {@code max} timers of {@code store} due at {@code now}; returns what is left of {@code max}. */
    private int fireDue(KeyValueStore<String, String> store, long now, int max) {
        if (max <= 0) {
            return 0;
        }
        List<KeyValue<String, String>> due = new ArrayList<>();
        try (KeyValueIterator<String, String> it = store.range(Timers.LOWER_BOUND, Timers.dueUpperBound(now))) {
            while (it.hasNext() && due.size() < max) {
                due.add(it.next());
            }
        }
        for (KeyValue<String, String> entry : due) {
            Timers.Timer timer = Timers.parse(entry.key);
            if (timer.kind() == Timers.Kind.PURGE_DECISION) {
                lifecycle.deleteTimer(store, entry.key);
                lifecycle.forgetDecision(timer.id());
                continue;
            }
            if (timer.kind() == Timers.Kind.PURGE_CLAIM) {
                store.delete(entry.key);
                lifecycle.forgetClaim(timer.id());
                continue;
            }
            ActionState state = lifecycle.load(timer.id());
            if (state == null || !entry.key.equals(state.timerKey())) {
                lifecycle.deleteTimer(store, entry.key); // stale: the action moved on
                continue;
            }
            // one action whose timer throws is left as it was (and retried next tick); the others still fire
            lifecycle.atomically(null, "timer " + timer.kind(), () -> fire(store, timer.kind(), state));
        }
        return max - due.size();
    }

    /**
     * One step of the purge scan at {@code now}: starts a pass when a new time bucket begins, and reads the next
     * {@value #PURGE_BATCH_MAX} actions of a running pass, removing the settled ones past their dedupe window.
     */
    void purgeSettled(long now) {
        long bucket = now / purgeBucketMillis(config);
        if (!purging && bucket != purgeBucket) {
            purging = true;
            purgeBucket = bucket;
            purgeCursor = null;
        }
        if (!purging) {
            return;
        }
        List<ActionState> batch = lifecycle.scanActions(purgeCursor, PURGE_BATCH_MAX);
        for (ActionState state : batch) {
            if (lifecycle.pastDedupeWindow(state, now)) {
                lifecycle.atomically(null, "purge", purgeBody, state);
            }
        }
        if (batch.size() < PURGE_BATCH_MAX) {
            purging = false; // the pass reached the end
        } else {
            purgeCursor = batch.get(batch.size() - 1).key() + '\u0000';
        }
    }

    /**
     * The purge scan's time bucket: a 24th of the dedupe window, at least one punctuation and at most an hour (the
     * default window of 7 days: one pass an hour).
     */
    public static long purgeBucketMillis(GateConfig config) {
        long bucket = config.dedupeWindow().toMillis() / 24;
        return Math.max(config.punctuateInterval().toMillis(), Math.min(bucket, java.time.Duration.ofHours(1)
                .toMillis()));
    }

    private void fire(KeyValueStore<String, String> store, Timers.Kind kind, ActionState state) {
        long now = lifecycle.now();
        switch (kind) {
            case APPROVAL_DEADLINE -> lifecycle.save(state, state.to(Phase.EXPIRED, ReasonCode.APPROVAL_EXPIRED,
                    "no decision before the approval deadline", now));
            case RETRY -> lifecycle.recheckAndReserve(state, state.withTimer(state.timerKey(), null));
            case LEASE -> {
                ActionState.AttemptRecord live = state.lastAttempt();
                ActionState lost = state.withAttempt(live.observed(DispatchResult.Status.UNKNOWN, true, null,
                        ReasonCode.LEASE_EXPIRED.name(), null, null));
                lifecycle.unknown(state, lost, ReasonCode.LEASE_EXPIRED,
                        "no outcome by lease_expires_at plus the dispatch timeout");
            }
            case PURGE_ACTION -> { // written to the logged store by an earlier release
                lifecycle.deleteTimer(store, state.timerKey());
                lifecycle.purge(state);
            }
            default -> throw new IllegalStateException("unhandled timer " + kind);
        }
    }

    /**
     * Cancels pending actions whose task or origin is no longer ACTIVE. Checks at most
     * {@code gate.cancel.sweep.batch.max} entries per sweep, resuming after the last key checked, so one sweep never
     * stalls the thread however many actions wait; a full pass takes ceil(pending / batch) sweeps.
     */
    void sweepCancelled() {
        Map<String, Optional<Boolean>> tasks = new HashMap<>();
        Map<String, Optional<Boolean>> origins = new HashMap<>();
        List<KeyValue<String, ReasonCode>> cancelled = new ArrayList<>();
        int checked = 0;
        String last = null;
        try (KeyValueIterator<String, String> it = lifecycle.pending().range(sweepCursor, null)) {
            while (it.hasNext() && checked < config.cancelSweepBatchMax()) {
                KeyValue<String, String> entry = it.next();
                checked++;
                last = entry.key;
                Optional<ActionKey> key = ActionKey.tryParse(entry.key);
                if (key.isEmpty()) {
                    continue; // only saved actions are indexed, under their valid key
                }
                String taskId = key.get().taskId();
                Optional<Boolean> taskActive = tasks.computeIfAbsent(taskId, lifecycle.policy()::taskActive);
                if (taskActive.isPresent() && !taskActive.get()) {
                    cancelled.add(KeyValue.pair(entry.key, ReasonCode.TASK_CANCELLED));
                    continue;
                }
                if (!entry.value.isEmpty()) {
                    Optional<Boolean> originActive = origins.computeIfAbsent(entry.value,
                            lifecycle.policy()::originActive);
                    if (originActive.isPresent() && !originActive.get()) {
                        cancelled.add(KeyValue.pair(entry.key, ReasonCode.ORIGIN_CANCELLED));
                    }
                }
            }
        }
        // resume just after the last key next time; start over once the end was reached
        sweepCursor = checked < config.cancelSweepBatchMax() || last == null ? null : last + '\u0000';
        long now = lifecycle.now();
        for (KeyValue<String, ReasonCode> c : cancelled) {
            ActionState state = lifecycle.load(c.key);
            if (state != null && state.phase().undispatched()) {
                LOG.info("action {} cancelled: {}", c.key, c.value);
                lifecycle.atomically(null, "cancellation", () -> lifecycle.save(state, state.to(Phase.CANCELLED,
                        c.value, c.value == ReasonCode.TASK_CANCELLED ? "task is no longer active"
                                : "origin is no longer active", now)));
            }
        }
    }
}
