package io.actiongate.loadtest.parts;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.actiongate.baseline.postgres.PostgresServer;
import io.actiongate.executor.ExecutorConfig;

import io.actiongate.loadtest.baselines.KafkaFlush;
import io.actiongate.loadtest.baselines.PostgresBench;
import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.Goals;

/**
 * Part "postgres": row pg, the Postgres claim-store baseline ({@link PostgresBench}), next to row f (actiongate's
 * read-only path end to end) when part "broker" ran before it. PostgreSQL must be installed (Debian's
 * {@code postgresql}); when it is not, the part records a failed invariant saying so and measures nothing.
 */
public final class PostgresPart implements BenchPart {

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String title() {
        return "Postgres claim-store baseline (claim, dispatch, result; same workload and provider as row f)";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        int maxPollRecords = executorSetting(o.nodeSettings(), ExecutorConfig.MAX_POLL_RECORDS_CONFIG);
        try {
            PostgresServer.findBinaries(); // before the broker starts: say at once when PostgreSQL is missing
        } catch (PostgresServer.UnavailableException e) {
            return unavailable(ctx, e);
        }
        Duration rowTime = Duration.ofSeconds(o.rowSeconds());
        List<BenchRow> rows = new java.util.ArrayList<>();
        Optional<BenchRow> f = ctx.row("f");
        String bootstrap = ctx.bootstrap();
        try (Progress.Task task = ctx.progress().start("rows pg (PostgreSQL claim store)",
                (long) PostgresBench.PHASES * 2 * o.pgWorkers().size());
             PostgresServer server = PostgresServer.start(ctx.stateRoot())) {
            int done = 0;
            for (boolean fsync : List.of(false, true)) {
                for (int workers : o.pgWorkers()) {
                    PostgresBench bench = new PostgresBench(o.brokerActions(), o.partitions(), workers,
                            maxPollRecords, Duration.ofMillis(o.providerLatencyMs())).fsync(fsync).rowTime(rowTime);
                    PostgresBench.Result r = bench.runOn(server, bootstrap, Progress.off().start("pg", 0));
                    task.set((long) PostgresBench.PHASES * ++done);
                    String id = rowId(workers, fsync);
                    BenchRow pg = new BenchRow(name(), id, "Postgres claim store, " + workers + " workers, "
                            + (fsync ? "fsync both sides" : "no fsync either side") + ": batched claim -> webhook "
                            + "-> batched result -> receipt", r.actions(), r.side().completed(),
                            r.side().throughput(), BenchRow.Latency.ofSortedNanos(r.side().sortedLatencyNanos()),
                            fsync ? null : f.isPresent() ? "f" : null, BrokerPart.withCpu(notes(r), r.cpu()));
                    rows.add(pg);
                    print(r, pg, rows.size() == 1 ? f : Optional.empty(), ctx.out(), rows.size() == 1);
                    PartTables.cpu(id, r.cpu(), o.rowSeconds(), ctx.out());
                    for (PostgresBench.Check check : PostgresBench.check(r.outcome())) {
                        ctx.invariant(check.name().replace("row pg:", "row " + id + ":"), check.held(),
                                check.detail());
                    }
                }
            }
        } catch (PostgresServer.UnavailableException e) {
            return unavailable(ctx, e);
        }
        rows.add(gateWithFsync(ctx));
        Goals.best(rows, false).ifPresent(b -> ctx.out().printf(Locale.ROOT,
                "  best pg row without fsync: %s %.0f/s%s%n",
                b.id(), b.throughput(), f.map(r -> String.format(Locale.ROOT, "; f / %s = %.2f x (goal 1.5)", b.id(),
                        r.throughput() / b.throughput())).orElse("")));
        BenchRow fs = rows.get(rows.size() - 1);
        Goals.best(rows, true).ifPresent(b -> ctx.out().printf(Locale.ROOT,
                "  best pg row with fsync: %s %.0f/s; fs / %s "
                + "= %.2f x (goal 1.5)%n", b.id(), b.throughput(), b.id(), fs.throughput() / b.throughput()));
        return rows;
    }

    /** Row id of a pg row: {@code pg<workers>}, {@code s} appended for the fsync setting. */
    public static String rowId(int workers, boolean fsync) {
        return "pg" + workers + (fsync ? "s" : "");
    }


    /**
     * Row fs: row f's gate and executor with Kafka fsyncing every write ({@code log.flush.interval.messages=1}),
     * the durability of the fsync pg rows.
     */
    private BenchRow gateWithFsync(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        BrokerBench bench = new BrokerBench(o.brokerActions(), o.partitions(), ctx.stateRoot(), o.nodeSettings(),
                false).providerLatency(Duration.ofMillis(o.providerLatencyMs()))
                .rowTime(Duration.ofSeconds(o.rowSeconds())).countBudget(false);
        BrokerBench.GateOnly r;
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(Map.of(
                org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ctx.bootstrap()))) {
            KafkaFlush.set(admin, true);
            try {
                r = bench.runGate(ctx.bootstrap());
            } finally {
                KafkaFlush.set(admin, false);
            }
        }
        BrokerRuns.Side side = r.side();
        ctx.out().printf(Locale.ROOT, "%-4s %-72s %10.0f %9.0f %9.0f %9.0f %9s %9s%n", "fs",
                "row f with Kafka fsync per write (log.flush.interval.messages=1)", side.throughput(), side.p(50),
                side.p(95), side.p(99), "-", side.completed() + "/" + side.actions());
        PartTables.cpu("fs", r.cpu(), o.rowSeconds(), ctx.out());
        ctx.invariant("row fs: every action SUCCEEDED", side.completed() == side.actions(),
                side.completed() + "/" + side.actions());
        r.checks().forEach((what, check) -> ctx.invariant("row fs: one " + what + " per action", check.held(),
                check.detail(what)));
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("kafka.log.flush.interval.messages", "1");
        return new BenchRow(name(), "fs", "actiongate read-only as row f, Kafka fsync per write", side.actions(),
                side.completed(), side.throughput(), BenchRow.Latency.ofSortedNanos(side.sortedLatencyNanos()), null,
                BrokerPart.withCpu(notes, r.cpu()));
    }

    /** The part fails, saying why, and measures nothing. */
    private static List<BenchRow> unavailable(BenchContext ctx, PostgresServer.UnavailableException e) {
        ctx.out().println("  row pg not measured: " + e.getMessage());
        ctx.invariant("row pg: PostgreSQL available", false, e.getMessage());
        return List.of();
    }

    /** The executor's setting as row f's node gets it: {@code --set key=value} over the executor's default. */
    public static int executorSetting(Map<String, String> nodeSettings, String key) {
        String set = nodeSettings.get(key);
        if (set != null) {
            return Integer.parseInt(set.strip());
        }
        return ((Number) ExecutorConfig.CONFIG.defaultValues().get(key)).intValue();
    }

    private static Map<String, String> notes(PostgresBench.Result r) {
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("partitions", String.valueOf(r.partitions()));
        notes.put("workers", String.valueOf(r.threads()));
        notes.put("max_poll_records", String.valueOf(r.maxPollRecords()));
        notes.put("warmup", String.valueOf(r.warmup()));
        notes.put("provider_requests", String.valueOf(r.providerRequests()));
        notes.put("commits", "one per poll (claims), one per settle batch (results)");
        notes.put("fsync", String.valueOf(r.fsync()));
        r.postgres().forEach((k, v) -> notes.put("postgres." + k, v));
        r.kafka().forEach((k, v) -> notes.put("kafka." + k, v));
        notes.put("redeliveries", r.outcome().redeliveryReceipts() + "/" + r.outcome().redeliveriesSent());
        notes.put("conflicts_refused", r.outcome().conflictsRefused() + "/" + r.outcome().conflictsSent());
        return notes;
    }

    private static void print(PostgresBench.Result r, BenchRow pg, Optional<BenchRow> f, PrintStream out,
                              boolean first) {
        if (first) {
            out.printf(Locale.ROOT, "%d partitions, warm-up of %d, max.poll.records %d; rows timed as row f%n",
                    r.partitions(), r.warmup(), r.maxPollRecords());
            out.printf(Locale.ROOT, "%-5s %-71s %10s %9s %9s %9s %9s %9s%n", "row", "what", "actions/s", "p50 ms",
                    "p95 ms", "p99 ms", "x (f)", "ok");
            f.ifPresent(row -> line(out, row, row));
        }
        line(out, pg, r.fsync() ? null : f.orElse(null));
        if (f.isPresent() && first) {
            double ratio = f.get().throughput() / pg.throughput();
            out.printf(Locale.ROOT, "  x (f): time per action (1 / throughput) as a multiple of row f's; row f moved "
                    + "%.2f x what row pg moved (issue 13's goal: at least 1.5)%n", ratio);
        } else {
            out.println("  row f was not measured in this run (part broker skipped): no ratio");
        }
        out.println("  latency: from send() of the proposal to the consumer seeing its receipt (read_committed)");
        Map<String, String> p = r.postgres();
        out.printf(Locale.ROOT, "  durability, PostgreSQL %s: fsync=%s synchronous_commit=%s "
                        + "wal_sync_method=%s full_page_writes=%s; one commit per poll of claims, one per batch of "
                        + "results%n", p.get("server_version"), p.get("fsync"),
                p.get("synchronous_commit"), p.get("wal_sync_method"), p.get("full_page_writes"));
        Map<String, String> k = r.kafka();
        out.printf(Locale.ROOT, "  durability, Kafka: acks=%s, replication factor %s, min.insync.replicas=%s, "
                        + "log.flush.interval.messages=%s, log.flush.interval.ms=%s%n", k.get("acks"),
                k.get("replication.factor"), k.get("min.insync.replicas"), k.get("log.flush.interval.messages"),
                k.get("log.flush.interval.ms"));
        PostgresBench.Outcome o = r.outcome();
        out.printf(Locale.ROOT, "  after the burst: %d/%d redelivered proposals answered from their claim, %d/%d "
                        + "conflicting inputs refused%n", o.redeliveryReceipts(), o.redeliveriesSent(),
                o.conflictsRefused(), o.conflictsSent());
        out.printf(Locale.ROOT, "  sandbox provider requests: %d for %d actions (one dispatch each, warm-up "
                + "included)%n", r.providerRequests(), o.proposals());
    }

    private static void line(PrintStream out, BenchRow row, BenchRow base) {
        BenchRow.Latency l = row.latency();
        out.printf(Locale.ROOT, "%-5s %-71.71s %10.0f %9.0f %9.0f %9.0f %9s %9s%n", row.id(), row.what(),
                row.throughput(),
                l == null ? Double.NaN : l.p50(), l == null ? Double.NaN : l.p95(), l == null ? Double.NaN : l.p99(),
                base == null ? "-" : String.format(Locale.ROOT, "%.2f", base.throughput() / row.throughput()),
                row.completed() + "/" + row.actions());
    }
}
