package io.actiongate.loadtest.parts;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.RecordBudget;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * Part "physical", row p: the physical limit of actiongate's read-only path on this broker. It takes the records
 * actiongate wrote per action of row f (counted by part "broker", {@link RecordBudget}; when that part did not run,
 * this part runs rows e and f once itself to count them, unreported) and measures how fast one transactional
 * producer writes exactly that mix ({@link PhysicalBench}). Row p's throughput is that rate in records/s divided by
 * the records per action; the goal line compares row f with it.
 */
public final class PhysicalPart implements BenchPart {

    public static final Duration MIN_DURATION = Duration.ofSeconds(10);
    public static final Duration WARMUP = Duration.ofSeconds(2);

    private final Duration minDuration;
    private final Duration warmup;

    public PhysicalPart() {
        this(MIN_DURATION, WARMUP);
    }

    /** With other durations than the benchmark's (the smoke test's tiny run). */
    public PhysicalPart(Duration minDuration, Duration warmup) {
        this.minDuration = minDuration;
        this.warmup = warmup;
    }

    @Override
    public String name() {
        return "physical";
    }

    @Override
    public String title() {
        return "physical limit: the broker's transactional produce rate for actiongate's records per action";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        if (ctx.attachment(RecordCounts.Budget.class).isEmpty() && ctx.row("f").isPresent()) {
            ctx.out().println("row f's records per action were not counted: no physical limit to compare with");
            return List.of();
        }
        RecordCounts.Budget budget = budget(ctx);
        ctx.invariant("row f's budget: actiongate wrote records for its actions", !budget.written().isEmpty(),
                String.format(Locale.ROOT, "%.2f records per action over %d topics", budget.recordsPerAction(),
                        budget.written().size()));
        if (budget.written().isEmpty()) {
            ctx.out().println("no records counted for row f: nothing to reproduce");
            return List.of();
        }
        PhysicalBench.Result r;
        try (Progress.Task task = ctx.progress().start("row p (physical limit)", 0)) {
            r = new PhysicalBench(budget, o.brokerActions(), minDuration, warmup).progress(task)
                    .run(ctx.bootstrap());
        }
        Optional<BenchRow> f = ctx.row("f");
        ctx.out().printf(Locale.ROOT, "one transactional producer (acks=all, idempotent, linger.ms=%d), a commit every "
                        + "%d ms, %d topics with f's partition counts, %.2f records of f's sizes per action%n",
                PhysicalBench.LINGER_MS, PhysicalBench.COMMIT_INTERVAL_MS, r.topics().size(),
                budget.recordsPerAction());
        ctx.out().printf(Locale.ROOT, "%-4s %-72s %10s %12s %12s%n", "row", "what", "actions/s", "records/s",
                "f / p");
        ctx.out().printf(Locale.ROOT, "%-4s %-72s %10.0f %12.0f %12s%n", "p", what(), r.actionsPerSecond(),
                r.recordsPerSecond(), f.map(row -> String.format(Locale.ROOT, "%.1f %%",
                        100 * row.throughput() / r.actionsPerSecond())).orElse("no row f"));
        ctx.out().printf(Locale.ROOT, "  %,d actions, %,d records in %.1f s, %,d transactions; every record read back "
                        + "with read_committed: %,d of %,d (warm-up included)%n", r.actions(), r.records(), r.seconds(),
                r.transactions(), r.committed(), r.sent());
        ctx.invariant("row p: every produced record committed and readable (read_committed)", r.allCommitted(),
                r.committed() + " of " + r.sent() + " records read back, " + r.failed() + " sends failed"
                        + (r.firstError() == null ? "" : " (first: " + r.firstError() + ")"));
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("records_per_s", String.format(Locale.ROOT, "%.0f", r.recordsPerSecond()));
        notes.put("records_per_action", String.format(Locale.ROOT, "%.2f", budget.recordsPerAction()));
        notes.put("bytes_per_action", String.format(Locale.ROOT, "%.0f", budget.bytesPerAction()));
        notes.put("transactions", String.valueOf(r.transactions()));
        notes.put("seconds", String.format(Locale.ROOT, "%.1f", r.seconds()));
        notes.put("topics", String.valueOf(r.topics().size()));
        notes.put("producer", "transactional, acks=all, idempotent, linger.ms=" + PhysicalBench.LINGER_MS
                + ", commit every " + PhysicalBench.COMMIT_INTERVAL_MS + " ms");
        f.ifPresent(row -> notes.put("f_share_percent", String.format(Locale.ROOT, "%.1f",
                100 * row.throughput() / r.actionsPerSecond())));
        int actions = (int) Math.min(Integer.MAX_VALUE, r.actions());
        return List.of(new BenchRow(name(), "p", what(), actions, r.allCommitted() ? actions : 0,
                r.actionsPerSecond(), null, null, notes));
    }

    private static String what() {
        return "physical limit: f's records per action, one transactional producer";
    }

    /** Row f's budget, or one counted now with rows e and f of the options' size when part broker did not run. */
    private static RecordCounts.Budget budget(BenchContext ctx) throws Exception {
        Optional<RecordCounts.Budget> counted = ctx.attachment(RecordCounts.Budget.class);
        if (counted.isPresent()) {
            return counted.get();
        }
        BenchOptions o = ctx.options();
        ctx.out().println("part broker did not run: counting row f's records per action with a run of rows e and f ("
                + o.brokerActions() + " actions, figures not reported)");
        BrokerBench bench = new BrokerBench(o.brokerActions(), o.partitions(), ctx.stateRoot(), o.nodeSettings(),
                o.misroute()).providerLatency(Duration.ofMillis(o.providerLatencyMs()));
        BrokerBench.Result r;
        try (Progress.Task task = ctx.progress().start("row f (for its budget)", bench.progressTotal())) {
            r = bench.progress(task).run(ctx.bootstrap());
        }
        ctx.invariant("row f (budget run): every action SUCCEEDED once", r.complete(), r.gate().completed() + "/"
                + r.actions() + " SUCCEEDED, " + r.providerRequests() + " provider requests");
        if (r.budget() == null) {
            throw new IllegalStateException("row f's records per action could not be counted (see the log)");
        }
        PartTables.budget(r.budget(), ctx.out());
        ctx.attach(RecordCounts.Budget.class, r.budget());
        return r.budget();
    }
}
