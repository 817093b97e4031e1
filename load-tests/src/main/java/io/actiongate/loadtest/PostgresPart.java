package io.actiongate.loadtest;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.actiongate.executor.ExecutorConfig;

/**
 * Part "postgres": row pg, the Postgres claim-store baseline ({@link PostgresBench}), next to row f (actiongate's
 * read-only path end to end) when part "broker" ran before it. PostgreSQL must be installed (Debian's
 * {@code postgresql}); when it is not, the part records a failed invariant saying so and measures nothing.
 */
final class PostgresPart implements BenchPart {

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
        int threads = executorSetting(o.nodeSettings(), ExecutorConfig.DISPATCH_THREADS_CONFIG);
        int maxPollRecords = executorSetting(o.nodeSettings(), ExecutorConfig.MAX_POLL_RECORDS_CONFIG);
        PostgresBench bench = new PostgresBench(o.brokerActions(), o.partitions(), threads, maxPollRecords,
                Duration.ofMillis(o.providerLatencyMs()));
        PostgresBench.Result r;
        try {
            PostgresServer.findBinaries(); // before the broker starts: say at once when PostgreSQL is missing
        } catch (PostgresServer.UnavailableException e) {
            return unavailable(ctx, e);
        }
        try (Progress.Task task = ctx.progress().start("row pg (PostgreSQL claim store)", PostgresBench.PHASES)) {
            r = bench.run(ctx.bootstrap(), ctx.stateRoot(), task);
        } catch (PostgresServer.UnavailableException e) {
            return unavailable(ctx, e);
        }
        Optional<BenchRow> f = ctx.row("f");
        BenchRow pg = new BenchRow(name(), "pg",
                "Postgres claim store: produce -> claim -> webhook -> result -> receipt", r.actions(),
                r.side().completed(), r.side().throughput(),
                BenchRow.Latency.ofSortedNanos(r.side().sortedLatencyNanos()), f.isPresent() ? "f" : null, notes(r));
        print(r, pg, f, ctx.out());
        for (PostgresBench.Check check : PostgresBench.check(r.outcome())) {
            ctx.invariant(check.name(), check.held(), check.detail());
        }
        return List.of(pg);
    }

    /** The part fails, saying why, and measures nothing. */
    private static List<BenchRow> unavailable(BenchContext ctx, PostgresServer.UnavailableException e) {
        ctx.out().println("  row pg not measured: " + e.getMessage());
        ctx.invariant("row pg: PostgreSQL available", false, e.getMessage());
        return List.of();
    }

    /** The executor's setting as row f's node gets it: {@code --set key=value} over the executor's default. */
    static int executorSetting(Map<String, String> nodeSettings, String key) {
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
        notes.put("commits_per_action", "2 (claim, result)");
        r.postgres().forEach((k, v) -> notes.put("postgres." + k, v));
        r.kafka().forEach((k, v) -> notes.put("kafka." + k, v));
        notes.put("redeliveries", r.outcome().redeliveryReceipts() + "/" + r.outcome().redeliveriesSent());
        notes.put("conflicts_refused", r.outcome().conflictsRefused() + "/" + r.outcome().conflictsSent());
        return notes;
    }

    private static void print(PostgresBench.Result r, BenchRow pg, Optional<BenchRow> f, PrintStream out) {
        out.printf(Locale.ROOT, "%d partitions, %d actions produced at once after a warm-up of %d; %d claim workers "
                        + "(executor.dispatch.threads), max.poll.records %d%n", r.partitions(), r.actions(),
                r.warmup(), r.threads(), r.maxPollRecords());
        out.printf(Locale.ROOT, "%-4s %-72s %10s %9s %9s %9s %9s %9s%n", "row", "what", "actions/s", "p50 ms",
                "p95 ms", "p99 ms", "x (f)", "ok");
        f.ifPresent(row -> line(out, row, row));
        line(out, pg, f.orElse(null));
        if (f.isPresent()) {
            double ratio = f.get().throughput() / pg.throughput();
            out.printf(Locale.ROOT, "  x (f): time per action (1 / throughput) as a multiple of row f's; row f moved "
                    + "%.2f x what row pg moved (issue 13's goal: at least 1.5)%n", ratio);
        } else {
            out.println("  row f was not measured in this run (part broker skipped): no ratio");
        }
        out.println("  latency: from send() of the proposal to the consumer seeing its receipt (read_committed)");
        Map<String, String> p = r.postgres();
        out.printf(Locale.ROOT, "  durability, PostgreSQL %s (its defaults, kept): fsync=%s synchronous_commit=%s "
                        + "wal_sync_method=%s full_page_writes=%s; two commits per action (claim, result), each "
                        + "waiting for its WAL flush%n", p.get("server_version"), p.get("fsync"),
                p.get("synchronous_commit"), p.get("wal_sync_method"), p.get("full_page_writes"));
        Map<String, String> k = r.kafka();
        out.printf(Locale.ROOT, "  durability, Kafka: acks=%s, replication factor %s, min.insync.replicas=%s, "
                        + "log.flush.interval.messages=%s, log.flush.interval.ms=%s: the broker does not fsync per "
                        + "write, Kafka relies on replication (one replica here)%n", k.get("acks"),
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
        out.printf(Locale.ROOT, "%-4s %-72s %10.0f %9.0f %9.0f %9.0f %9s %9s%n", row.id(), row.what(), row.throughput(),
                l == null ? Double.NaN : l.p50(), l == null ? Double.NaN : l.p95(), l == null ? Double.NaN : l.p99(),
                base == null ? "-" : String.format(Locale.ROOT, "%.2f", base.throughput() / row.throughput()),
                row.completed() + "/" + row.actions());
    }
}
