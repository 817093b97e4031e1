package io.actiongate.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Time to recover as a figure (docs/chaos.md, "Time to recover"). A fault's time to recover runs
 * from its injection until the first action proposed after it was over settles. The goal: every single fault
 * recovered within {@link #GOAL} at the measured load. A fault that lasts longer than that by design (a rolling
 * restart of three brokers, one after another) is judged after its end instead: recovered within the goal of being
 * over, and every action proposed while it lasted settled within the goal too. The report states the p95 and the
 * maximum over the run and names each fault that missed the goal with what took the time. A fault the load proposed
 * nothing after (an upgrade run's rollback drill, a fault over after the load ended) is not judged: its recovery
 * cannot be seen, and the report names it apart rather than counting it as missed.
 *
 * @param measured faults with a recovery time
 * @param p95Ms    the 95th percentile of their recovery times (nearest rank), -1 without any
 * @param maxMs    the longest, -1 without any
 * @param beyond   one line per fault that missed the goal, or that was never seen to recover
 * @param longer   one line per fault that lasted longer than the goal by design and met it after its end
 * @param unjudged one line per fault the load proposed nothing after
 */
record RecoveryGoal(int measured, long p95Ms, long maxMs, List<String> beyond, List<String> longer,
                    List<String> unjudged) {

    static final Duration GOAL = Duration.ofSeconds(30);

    static RecoveryGoal of(List<ChaosRun.FaultRecord> faults) {
        long goal = GOAL.toMillis();
        List<Long> times = new ArrayList<>();
        List<String> beyond = new ArrayList<>();
        List<String> longer = new ArrayList<>();
        List<String> unjudged = new ArrayList<>();
        for (ChaosRun.FaultRecord f : faults) {
            long over = f.restoredAtMs() - f.injectedAtMs();
            if (f.recoveredAfterMs() == ChaosRun.FaultRecord.NOTHING_PROPOSED_AFTER) {
                unjudged.add(String.format(Locale.ROOT, "#%d %s", f.index(), f.kind()));
                continue;
            }
            if (f.recoveredAfterMs() < 0) {
                beyond.add(String.format(Locale.ROOT, "#%d %s: no action proposed after it settled", f.index(),
                        f.kind()));
                continue;
            }
            times.add(f.recoveredAfterMs());
            long afterEnd = f.recoveredAfterMs() - over;
            if (over > goal) {
                String line = String.format(Locale.ROOT, "#%d %s lasted %.1f s, recovered %.1f s after its end, "
                        + "slowest action proposed during it %s", f.index(), f.kind(), over / 1000.0,
                        afterEnd / 1000.0, f.slowestDuringMs() < 0 ? "n/a"
                                : String.format(Locale.ROOT, "%.1f s", f.slowestDuringMs() / 1000.0));
                if (afterEnd > goal || f.slowestDuringMs() > goal) {
                    beyond.add(line);
                } else {
                    longer.add(line);
                }
            } else if (f.recoveredAfterMs() > goal) {
                beyond.add(String.format(Locale.ROOT, "#%d %s %.1f s (%.1f s after the fault was over)", f.index(),
                        f.kind(), f.recoveredAfterMs() / 1000.0, afterEnd / 1000.0));
            }
        }
        times.sort(null);
        long p95 = times.isEmpty() ? -1 : times.get(Math.max(0, (int) Math.ceil(0.95 * times.size()) - 1));
        long max = times.isEmpty() ? -1 : times.get(times.size() - 1);
        return new RecoveryGoal(times.size(), p95, max, List.copyOf(beyond), List.copyOf(longer),
                List.copyOf(unjudged));
    }

    boolean met() {
        return beyond.isEmpty();
    }

    /** The report's line. */
    String describe() {
        if (measured == 0 && beyond.isEmpty()) {
            return "Time to recover: no fault measured.";
        }
        return String.format(Locale.ROOT, "Time to recover: goal every fault within %d s; p95 %.1f s, max %.1f s "
                + "over %d fault(s): %s%s%s", GOAL.toSeconds(), p95Ms / 1000.0, maxMs / 1000.0, measured,
                met() ? "**met**" : "**not met**, " + beyond.size() + " missed it: " + String.join("; ", beyond),
                longer.isEmpty() ? "" : ". Longer than the goal by design, judged after their end: "
                        + String.join("; ", longer),
                unjudged.isEmpty() ? "" : ". Not judged, the load proposed nothing after them: "
                        + String.join("; ", unjudged));
    }
}
