package io.actiongate.loadtest.parts;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.report.RecordCounts;

/** The printed tables. Ratios are "times the baseline's cost per action" (higher = more expensive). */
public final class PartTables {

    private PartTables() {
    }

    public static void topology(List<TopologyBench.Row> rows, PrintStream out) {
        out.printf(Locale.ROOT, "%-4s %-72s %12s %10s %9s %9s%n", "row", "what", "actions/s", "us/action",
                "x (a)", "ok");
        long baseline = rows.stream().filter(r -> r.id().equals("a")).findFirst().orElseThrow().median();
        for (TopologyBench.Row r : rows) {
            out.printf(Locale.ROOT, "%-4s %-72s %12.0f %10.1f %9.2f %9s%n", r.id(), r.what(), r.actionsPerSecond(),
                    r.median() / 1e3 / r.actions(), (double) r.median() / baseline,
                    r.verified() + "/" + r.actions());
        }
        out.println("  x (a): cost per action as a multiple of the baseline's (a) in this same run");
        out.println("  ok: actions that ended in the scenario's expected state, lowest over the rounds");
        for (TopologyBench.Row r : rows) {
            out.printf(Locale.ROOT, "  rounds %-3s ms: %s%n", r.id(), r.nanos().stream()
                    .map(n -> String.format(Locale.ROOT, "%.0f", n / 1e6)).toList());
        }
    }

    public static void broker(BrokerBench.Result r, PrintStream out) {
        if (r.baselineCpu() != null) {
            out.println(r.partitions() + " partitions, each row timed for a window with the same number of actions "
                    + "in flight, after a warm-up of " + r.warmup());
        } else {
            out.println(r.partitions() + " partitions, " + r.actions() + " actions produced at once after a warm-up "
                    + "of " + r.warmup());
        }
        out.printf(Locale.ROOT, "%-4s %-72s %10s %9s %9s %9s %9s %9s%n", "row", "what", "actions/s", "p50 ms",
                "p95 ms", "p99 ms", "x (e)", "ok");
        line(out, "e", "baseline: produce -> EOS Streams pass-through -> consume", r.baseline(), r.baseline());
        line(out, "f", "actiongate read-only: produce -> gate -> executor -> webhook -> SUCCEEDED", r.gate(),
                r.baseline());
        if (r.misrouted()) {
            out.println("  f: every proposal produced to a partition other than its key's murmur2 home (one gate hop each)");
        }
        out.println("  x (e): time per action (1 / throughput) as a multiple of the baseline's (e) in this same run");
        out.println("  latency: from send() of the proposal to the consumer seeing its output (read_committed)");
        out.printf(Locale.ROOT, "  sandbox provider requests: %d for %d actions (one dispatch each, warm-up included)%n",
                r.providerRequests(), r.actions() + r.warmup());
        r.gateChecks().forEach((what, check) -> out.println("  per key, row f: " + check.detail(what)));
    }

    /**
     * The CPU line of row {@code id}, or why there is none; says when the timed window was shorter than
     * {@code minSeconds} (steady state not shown).
     */
    public static void cpu(String id, CpuAccount.Window w, int minSeconds, PrintStream out) {
        if (w == null) {
            out.println("  " + id + ": cpu not accounted (a burst, --row-seconds 0)");
            return;
        }
        out.println("  " + id + ": " + w.describe());
        if (w.seconds() < Math.max(minSeconds, 10) - 0.05) {
            out.printf(Locale.ROOT, "  %s: timed %.1f s, shorter than 10 s: warm-up and queueing may dominate%n", id,
                    w.seconds());
        }
    }

    private static void line(PrintStream out, String id, String what, BrokerRuns.Side side, BrokerRuns.Side base) {
        out.printf(Locale.ROOT, "%-4s %-72s %10.0f %9.0f %9.0f %9.0f %9.2f %9s%n", id, what, side.throughput(),
                side.p(50), side.p(95), side.p(99), base.throughput() / side.throughput(),
                side.completed() + "/" + side.actions());
    }

    /** The records actiongate wrote per action, per topic: the "budget per action". */
    public static void budget(RecordCounts.Budget b, PrintStream out) {
        out.println("records actiongate wrote per action of row f (" + b.actions() + " actions, log end offsets "
                + "before and after, records read back):");
        out.printf(Locale.ROOT, "%-58s %-11s %5s %14s %12s %14s%n", "topic", "kind", "parts", "records/action",
                "bytes/record", "markers/action");
        for (RecordCounts.TopicCount t : b.topics()) {
            out.printf(Locale.ROOT, "%-58s %-11s %5d %14.2f %12.0f %14.2f%n", t.topic(), t.kind(), t.partitions(),
                    b.perAction(t), t.bytesPerRecord(), (double) t.markers() / b.actions());
        }
        out.printf(Locale.ROOT, "%-58s %-11s %5s %14.2f %12.0f %14.2f%n", "all topics", "", "", b.recordsPerAction(),
                b.recordsPerAction() == 0 ? 0 : b.bytesPerAction() / b.recordsPerAction(), b.markersPerAction());
        out.println("  records: committed records (read_committed); input: the proposals topic, whose records from "
                + "the benchmark's client are not counted");
        out.println("  markers: transaction control markers (one per partition per committed transaction), offsets "
                + "that hold no record");
        if (b.aborted() > 0) {
            out.println("  aborted records (written, never committed): " + b.aborted());
        }
    }
}
