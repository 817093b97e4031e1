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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.TaskState;
import io.actiongate.contract.ReasonCode;
import io.actiongate.key.ActionKey;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.policy.PolicyChanges;

/**
 * The gate's clocks, driven by wall-clock punctuators (they fire also when no records arrive):
 * <ul>
 *   <li>every {@code gate.punctuate.interval}: the due prefix of {@code gate-timers} (approval deadlines,
 *       retries, lease expiry, dedupe purges), at most {@code gate.timer.batch.max} per tick;</li>
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
    private Lifecycle lifecycle;
    private String sweepCursor;

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
        context.schedule(config.punctuateInterval(), PunctuationType.WALL_CLOCK_TIME, this::fireDue);
        context.schedule(config.cancelSweepInterval(), PunctuationType.WALL_CLOCK_TIME, now -> sweepCancelled());
    }

    @Override
    public void process(Record<Object, Object> record) {
        // timers only: nothing is forwarded here
    }

    /** Fires every timer due at {@code now}. */
    void fireDue(long now) {
        List<KeyValue<String, String>> due = new ArrayList<>();
        try (KeyValueIterator<String, String> it = lifecycle.timers()
                .range(Timers.LOWER_BOUND, Timers.dueUpperBound(now))) {
            while (it.hasNext() && due.size() < config.timerBatchMax()) {
                due.add(it.next());
            }
        }
        for (KeyValue<String, String> entry : due) {
            Timers.Timer timer = Timers.parse(entry.key);
            if (timer.kind() == Timers.Kind.PURGE_DECISION) {
                lifecycle.deleteTimer(entry.key);
                lifecycle.forgetDecision(timer.id());
                continue;
            }
            if (timer.kind() == Timers.Kind.PURGE_CLAIM) {
                lifecycle.timers().delete(entry.key);
                lifecycle.forgetClaim(timer.id());
                continue;
            }
            ActionState state = lifecycle.load(timer.id());
            if (state == null || !entry.key.equals(state.timerKey())) {
                lifecycle.deleteTimer(entry.key); // stale: the action moved on
                continue;
            }
            // one action whose timer throws is left as it was (and retried next tick); the others still fire
            lifecycle.atomically(null, "timer " + timer.kind(), () -> fire(timer.kind(), state));
        }
    }

    private void fire(Timers.Kind kind, ActionState state) {
        long now = lifecycle.now();
        switch (kind) {
            case APPROVAL_DEADLINE -> lifecycle.save(state, state.to(Phase.EXPIRED, ReasonCode.APPROVAL_EXPIRED,
                    "no decision before the approval deadline", now));
            case RETRY -> lifecycle.recheckAndReserve(state, state.withTimer(state.timerKey(), null));
            case LEASE -> {
                ActionState.AttemptRecord live = state.lastAttempt();
                ActionState lost = state.withAttempt(live.observed(ActionState.AttemptStatus.UNKNOWN, true, null,
                        ReasonCode.LEASE_EXPIRED.name(), null, null));
                lifecycle.unknown(state, lost, ReasonCode.LEASE_EXPIRED,
                        "no outcome by lease_expires_at plus the dispatch timeout");
            }
            case PURGE_ACTION -> {
                lifecycle.deleteTimer(state.timerKey());
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
        Map<String, Optional<TaskState>> tasks = new HashMap<>();
        Map<String, Optional<OriginState>> origins = new HashMap<>();
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
                Optional<TaskState> task = tasks.computeIfAbsent(taskId, lifecycle.policy()::task);
                if (task.isPresent() && task.get().getStatus() != LifecycleStatus.ACTIVE) {
                    cancelled.add(KeyValue.pair(entry.key, ReasonCode.TASK_CANCELLED));
                    continue;
                }
                if (!entry.value.isEmpty()) {
                    Optional<OriginState> origin = origins.computeIfAbsent(entry.value, lifecycle.policy()::origin);
                    if (origin.isPresent() && origin.get().getStatus() != LifecycleStatus.ACTIVE) {
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
