package io.actiongate.chaos.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the checker counted and every violation it found; {@link #ok()} only with none. */
public final class CheckResult {

    private final Map<String, Long> counts = new TreeMap<>();
    private final Map<String, Long> finalStatuses = new TreeMap<>();
    private final Map<String, Long> unknownResolutions = new TreeMap<>();
    private final List<String> violations = new ArrayList<>();
    private long duplicates;
    private long lost;
    private long hanging;

    synchronized void count(String name, long n) {
        counts.merge(name, n, Long::sum);
    }

    synchronized void finalStatus(String status) {
        finalStatuses.merge(status, 1L, Long::sum);
    }

    synchronized void unknown(String resolution) {
        unknownResolutions.merge(resolution, 1L, Long::sum);
    }

    synchronized void violation(String what) {
        violations.add(what);
    }

    synchronized void duplicate(String what, long n) {
        violations.add(what);
        duplicates += n;
    }

    synchronized void lost(long n) {
        lost += n;
    }

    synchronized void hanging(long n) {
        hanging += n;
    }

    /** A violation the run found itself (an upgrade run's approval service people), outside the topic checks. */
    public synchronized void fail(String what) {
        violation(what);
    }

    public synchronized boolean ok() {
        return violations.isEmpty();
    }

    public synchronized Map<String, Long> counts() {
        return new TreeMap<>(counts);
    }

    public synchronized long count(String name) {
        return counts.getOrDefault(name, 0L);
    }

    public synchronized Map<String, Long> finalStatuses() {
        return new TreeMap<>(finalStatuses);
    }

    /** Actions that went through UNKNOWN, by how they ended. */
    public synchronized Map<String, Long> unknownResolutions() {
        return new TreeMap<>(unknownResolutions);
    }

    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    public synchronized long duplicates() {
        return duplicates;
    }

    public synchronized long lost() {
        return lost;
    }

    public synchronized long hanging() {
        return hanging;
    }

    /** The checker's printout: every count (so a run that checked nothing shows it), then the violations. */
    public synchronized String describe() {
        StringBuilder out = new StringBuilder("checker:\n");
        counts.forEach((k, v) -> out.append("  ").append(k).append(": ").append(v).append('\n'));
        out.append("  final receipt statuses: ").append(finalStatuses).append('\n');
        out.append("  went through UNKNOWN, ended: ").append(unknownResolutions).append('\n');
        out.append(String.format("  RESULT: %d duplicates, %d lost, %d hanging, %d violation(s)%n", duplicates, lost,
                hanging, violations.size()));
        int shown = 0;
        for (String v : violations) {
            if (shown++ == 50) {
                out.append("  ... ").append(violations.size() - 50).append(" more\n");
                break;
            }
            out.append("  VIOLATION ").append(v).append('\n');
        }
        return out.toString();
    }
}
