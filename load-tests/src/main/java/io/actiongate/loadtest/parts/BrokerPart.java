package io.actiongate.loadtest.parts;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.actiongate.loadtest.baselines.SkeletonBench;
import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.RecordBudget;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * Part "broker": rows e (EOS pass-through baseline) and f (actiongate's read-only path end to end) from
 * {@link BrokerBench}, on the run's broker, and the records actiongate wrote per action of row f
 * ({@link RecordBudget}, attached to the context for part "physical" and the report).
 */
public final class BrokerPart implements BenchPart {

    @Override
    public String name() {
        return "broker";
    }

    @Override
    public String title() {
        return "end to end on the embedded broker (EOS v2)";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        BrokerBench.Result r;
        BrokerBench bench = new BrokerBench(o.brokerActions(), o.partitions(), ctx.stateRoot(), o.nodeSettings(),
                o.misroute()).providerLatency(java.time.Duration.ofMillis(o.providerLatencyMs()))
                .rowTime(java.time.Duration.ofSeconds(o.rowSeconds()));
        try (Progress.Task task = ctx.progress().start("rows e and f", bench.progressTotal())) {
            r = bench.progress(task).run(ctx.bootstrap());
        }
        PartTables.broker(r, ctx.out());
        PartTables.cpu("e", r.baselineCpu(), o.rowSeconds(), ctx.out());
        PartTables.cpu("f", r.gateCpu(), o.rowSeconds(), ctx.out());
        ctx.out().println();
        if (r.budget() != null) {
            PartTables.budget(r.budget(), ctx.out());
            ctx.attach(RecordCounts.Budget.class, r.budget());
        } else {
            ctx.out().println("records per action of row f: not counted (see the log)");
        }
        ctx.invariant("row e: every action through the pass-through",
                r.baseline().completed() == r.baseline().actions(),
                r.baseline().completed() + "/" + r.baseline().actions());
        ctx.invariant("row f: every action SUCCEEDED", r.gate().completed() == r.actions(),
                r.gate().completed() + "/" + r.actions());
        r.gateChecks().forEach((what, check) -> ctx.invariant("row f: one " + what + " per action", check.held(),
                check.detail(what)));
        ctx.invariant("row f: one provider request per action (none lost, none doubled)",
                r.providerRequests() == r.actions() + r.warmup(),
                r.providerRequests() + " requests for " + (r.actions() + r.warmup()) + " actions, warm-up included");
        SkeletonBench.Result sk = skeleton(ctx, r);
        Map<String, String> fNotes = new java.util.LinkedHashMap<>();
        fNotes.put("partitions", String.valueOf(r.partitions()));
        fNotes.put("misrouted", String.valueOf(r.misrouted()));
        fNotes.put("provider_requests", String.valueOf(r.providerRequests()));
        if (r.budget() != null) {
            fNotes.put("records_per_action", String.format(Locale.ROOT, "%.2f", r.budget().recordsPerAction()));
            fNotes.put("bytes_per_action", String.format(Locale.ROOT, "%.0f", r.budget().bytesPerAction()));
            fNotes.put("markers_per_action", String.format(Locale.ROOT, "%.2f", r.budget().markersPerAction()));
        }
        Map<String, String> skNotes = new java.util.LinkedHashMap<>();
        skNotes.put("partitions", String.valueOf(r.partitions()));
        skNotes.put("provider_requests", String.valueOf(sk.providerRequests()));
        skNotes.put("value_bytes", sk.sizes().toString());
        return List.of(
                new BenchRow(name(), "e", "baseline: produce -> EOS Streams pass-through -> consume",
                        r.baseline().actions(), r.baseline().completed(), r.baseline().throughput(),
                        BenchRow.Latency.ofSortedNanos(r.baseline().sortedLatencyNanos()), null,
                        withCpu(Map.of("partitions", String.valueOf(r.partitions())), r.baselineCpu())),
                new BenchRow(name(), "f", "actiongate read-only: produce -> gate -> executor -> webhook -> SUCCEEDED",
                        r.actions(), r.gate().completed(), r.gate().throughput(),
                        BenchRow.Latency.ofSortedNanos(r.gate().sortedLatencyNanos()), "e", withCpu(fNotes,
                        r.gateCpu())),
                new BenchRow(name(), "sk", "skeleton: f's topology shape and record mix, stub logic", sk.side().actions(),
                        sk.side().completed(), sk.side().throughput(),
                        BenchRow.Latency.ofSortedNanos(sk.side().sortedLatencyNanos()), null, withCpu(skNotes,
                        sk.cpu())));
    }

    /** Row sk on the same broker, right after row f, with f's record sizes; prints it beside f with f / sk. */
    private static SkeletonBench.Result skeleton(BenchContext ctx, BrokerBench.Result f) throws Exception {
        BenchOptions o = ctx.options();
        int threads = PostgresPart.executorSetting(o.nodeSettings(),
                io.actiongate.executor.ExecutorConfig.DISPATCH_THREADS_CONFIG);
        int maxPoll = PostgresPart.executorSetting(o.nodeSettings(),
                io.actiongate.executor.ExecutorConfig.MAX_POLL_RECORDS_CONFIG);
        SkeletonBench bench = new SkeletonBench(o.brokerActions(), o.partitions(), ctx.stateRoot(), threads, maxPoll,
                java.time.Duration.ofMillis(o.providerLatencyMs()),
                java.time.Duration.ofSeconds(Math.max(1, o.rowSeconds())), SkeletonBench.Sizes.of(f.budget()));
        SkeletonBench.Result sk;
        try (Progress.Task task = ctx.progress().start("row sk (skeleton)", 0)) {
            sk = bench.run(ctx.bootstrap(), task);
        }
        PrintStreamLines.skeleton(ctx.out(), f, sk);
        PartTables.cpu("sk", sk.cpu(), o.rowSeconds(), ctx.out());
        ctx.invariant("row sk: every action SUCCEEDED", sk.side().completed() == sk.side().actions(),
                sk.side().completed() + "/" + sk.side().actions());
        sk.checks().forEach((what, check) -> ctx.invariant("row sk: one " + what + " per action", check.held(),
                check.detail(what)));
        return sk;
    }

    /** The skeleton's lines. */
    private static final class PrintStreamLines {
        public static void skeleton(java.io.PrintStream out, BrokerBench.Result f, SkeletonBench.Result sk) {
            BrokerRuns.Side s = sk.side();
            out.printf(Locale.ROOT, "%-4s %-72s %10.0f %9.0f %9.0f %9.0f %9.2f %9s%n", "sk",
                    "skeleton: f's topology shape and record mix, stub logic", s.throughput(), s.p(50), s.p(95),
                    s.p(99), f.baseline().throughput() / s.throughput(), s.completed() + "/" + s.actions());
            out.printf(Locale.ROOT, "  f / sk: time per action %.2f x the skeleton's", s.throughput()
                    / f.gate().throughput());
            if (f.gateCpu() != null && sk.cpu() != null && f.gateCpu().machinePerAction() != null
                    && sk.cpu().machinePerAction() != null) {
                out.printf(Locale.ROOT, ", machine CPU per action %.2f x, this JVM's %.2f x (issue 27's goal: "
                                + "machine CPU at most 2 x)", f.gateCpu().machinePerAction()
                                / sk.cpu().machinePerAction(), f.gateCpu().ownPerAction() / sk.cpu().ownPerAction());
            }
            out.println();
            sk.checks().forEach((what, check) -> out.println("  per key, row sk: " + check.detail(what)));
        }
    }

    /** {@code notes} and, when the row was timed as a window, its CPU per action ({@link CpuAccount.Window#notes}). */
    public static Map<String, String> withCpu(Map<String, String> notes, CpuAccount.Window cpu) {
        Map<String, String> n = new java.util.LinkedHashMap<>(notes);
        if (cpu != null) {
            n.putAll(cpu.notes());
        }
        return n;
    }
}
