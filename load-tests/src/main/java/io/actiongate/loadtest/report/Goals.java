package io.actiongate.loadtest.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The goal lines (docs/benchmark.md, "Goal lines"; the gate-heap goal of the first goals still stands), each computed
 * from the rows of one run: MET, NOT MET, or not measured when a row it needs is missing (its part did not run) or
 * has no usable figure. They replaced three of the first goals: "f at least 50 % of row p" (p is no reachable limit),
 * "2 gate instances at least 1.7 x one" (two cores cannot show throughput scaling; the CPU per action can show a
 * coordination cost) and the 250 ms latencies (now 150 ms p99 at 50 % of saturation, 60 ms p50 at light load). The
 * rows are found by id: f (read-only end to end), sk (the skeleton), fs (f with Kafka fsync), the best pg rows,
 * ol50 (open loop at 50 % of saturation), light (light load), dv (signed approval decisions on one stream thread;
 * c2, the test driver's figure, when dv did not run), m (gate memory, note {@code heap_mib}), g1 and g2 (one and two
 * gate instances: machine CPU per action).
 */
public final class Goals {

    public static final long MEMORY_ACTIONS = 1_000_000;
    /** Goal: p99 proposal to receipt at 50 % of saturation (row ol50), at most this. */
    public static final double HALF_SATURATION_P99_MS = 150;
    /** Goal: p50 proposal to receipt at light load with dev's settings (row light), at most this. */
    public static final double LIGHT_LOAD_P50_MS = 60;

    private Goals() {
    }

    /** Whether a goal held in this run. */
    public enum Status {
        MET("MET"), NOT_MET("NOT MET"), NOT_MEASURED("not measured");

        private final String label;

        Status(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * One goal line.
     *
     * @param id     a stable name for the JSON report
     * @param goal   what the issue asks for
     * @param target the threshold, as printed
     * @param value  this run's figure in the unit of {@code target} (null when not measured)
     * @param rows   the row ids the figure is computed from
     * @param detail how the figure was computed, or which row is missing
     */
    public record Result(String id, String goal, String target, Double value, String unit, List<String> rows,
                  Status status, String detail) {
    }

    public static List<Result> evaluate(List<BenchRow> rows) {
        Map<String, BenchRow> byId = rows.stream()
                .collect(Collectors.toMap(BenchRow::id, Function.identity(), (a, b) -> a));
        List<Result> out = new ArrayList<>();
        out.add(cpuVsSkeleton(byId));
        out.add(ratio(byId, "postgres_baseline", "read-only end to end vs the best Postgres row, no fsync", "f",
                bestPg(rows, false), 1.5, "x"));
        out.add(ratio(byId, "postgres_baseline_fsync", "read-only end to end vs the best Postgres row, fsync",
                "fs", bestPg(rows, true), 1.5, "x"));
        out.add(throughput(byId));
        out.add(latency(byId, "light_load_p50", "p50 proposal -> receipt at light load (dev settings)", "light",
                "p50", BenchRow.Latency::p50, LIGHT_LOAD_P50_MS));
        out.add(latency(byId, "p99_at_half_saturation", "p99 proposal -> receipt at 50 % of saturation", "ol50",
                "p99", BenchRow.Latency::p99, HALF_SATURATION_P99_MS));
        out.add(cpuTwoGates(byId));
        out.add(memory(byId));
        out.addAll(closedLoop(byId));
        return out;
    }

    /**
     * The best of Restate 1.7.12 and DBOS Transact 5.3.0 (on PostgreSQL 15) doing the same job on the same 2-core
     * machine type, one system at a time (docs/benchmark.md, "Peers"): with 16 and 64 hosts waiting for each answer,
     * actions/s, p50 ms and machine CPU µs per action; one action at a time, p50 ms. Each is the best of its column.
     */
    public record Peers(int hosts, double throughput, double p50Ms, double cpuUs) {
        public static final List<Peers> BEST = List.of(new Peers(16, 473, 33, 3_900), new Peers(64, 575, 109, 3_200));
    }

    /** Closed loops: at least 1.5 x the best peer's throughput, at most its p50 and CPU; one at a time; idle. */
    private static List<Result> closedLoop(Map<String, BenchRow> byId) {
        List<Result> out = new ArrayList<>();
        for (Peers peer : Peers.BEST) {
            for (String transport : List.of("k", "h")) {
                String row = transport + peer.hosts();
                String over = (transport.equals("k") ? "Kafka" : "HTTP") + ", " + peer.hosts() + " waiting hosts";
                out.add(atLeast(byId, "closed_" + row + "_throughput", "actions/s, " + over, row,
                        1.5 * peer.throughput(), String.format(Locale.ROOT, "1.5 x the best peer's %.0f/s",
                                peer.throughput())));
                out.add(latency(byId, "closed_" + row + "_p50", "p50 ms, " + over + " (best peer: this or less)",
                        row, "p50", BenchRow.Latency::p50, peer.p50Ms()));
                Double cpu = cpuNote(byId.get(row), "machine");
                String target = String.format(Locale.ROOT, "<= %.0f us", peer.cpuUs());
                out.add(cpu == null
                        ? new Result("closed_" + row + "_cpu", "machine CPU per action, " + over, target, null, "us",
                                List.of(row), Status.NOT_MEASURED, "no row " + row + " with a CPU figure")
                        : new Result("closed_" + row + "_cpu", "machine CPU per action, " + over, target, cpu, "us",
                                List.of(row), cpu <= peer.cpuUs() ? Status.MET : Status.NOT_MET,
                                String.format(Locale.ROOT, "%s %.0f us", row, cpu)));
            }
        }
        out.add(latency(byId, "one_at_a_time_kafka_p50", "p50 ms, one action at a time over Kafka (dev)", "k1",
                "p50", BenchRow.Latency::p50, 10));
        out.add(latency(byId, "one_at_a_time_http_p50", "p50 ms, one action at a time over HTTP (dev)", "h1",
                "p50", BenchRow.Latency::p50, 15));
        BenchRow idle = byId.get("idle");
        Double cores = null;
        try {
            cores = idle == null ? null : Double.valueOf(idle.notes().get("cores.dev"));
        } catch (NumberFormatException | NullPointerException e) {
            // not measured
        }
        out.add(cores == null
                ? new Result("idle_dev", "cores dev uses with nothing to do", "<= 0.05", null, "cores",
                        List.of("idle"), Status.NOT_MEASURED, "no row idle")
                : new Result("idle_dev", "cores dev uses with nothing to do", "<= 0.05", cores, "cores",
                        List.of("idle"), cores <= 0.05 ? Status.MET : Status.NOT_MET,
                        String.format(Locale.ROOT, "idle %.3f of a core", cores)));
        return out;
    }

    private static Result atLeast(Map<String, BenchRow> byId, String id, String goal, String row, double min,
                                  String target) {
        BenchRow r = byId.get(row);
        if (r == null || !(r.throughput() > 0)) {
            return new Result(id, goal, target, null, "/s", List.of(row), Status.NOT_MEASURED,
                    r == null ? "no row " + row : "no throughput in row " + row);
        }
        return new Result(id, goal, target, r.throughput(), "/s", List.of(row),
                r.throughput() >= min ? Status.MET : Status.NOT_MET,
                String.format(Locale.ROOT, "%s %.0f/s against %.0f/s", row, r.throughput(), min));
    }

    /**
     * The id of the fastest pg row of one durability (the best pg row is the one to beat): {@code pg} or
     * {@code pg<workers>} without fsync, {@code pg<workers>s} with; {@code pg} (missing) when there is none.
     */
    public static String bestPg(List<BenchRow> rows, boolean fsync) {
        return best(rows, fsync).map(BenchRow::id).orElse(fsync ? "pg8s" : "pg");
    }

    /** A CPU-µs-per-action note of a row ({@code CpuAccount.Window#notes}), or null. */
    public static Double cpuNote(BenchRow row, String key) {
        String v = row == null ? null : row.notes().get("cpu_us." + key);
        if (v == null) {
            return null;
        }
        try {
            double d = Double.parseDouble(v);
            return d > 0 && Double.isFinite(d) ? d : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Goal: machine CPU per read-only action (row f) at most 2 x the skeleton's (row sk). */
    private static Result cpuVsSkeleton(Map<String, BenchRow> byId) {
        Result r = cpuRatio(byId, "cpu_vs_skeleton", "machine CPU per read-only action vs the skeleton", "f", "sk",
                2.0, "<= 2.0 x");
        Double fo = cpuNote(byId.get("f"), "own");
        Double so = cpuNote(byId.get("sk"), "own");
        if (r.value() == null || fo == null || so == null) {
            return r;
        }
        return new Result(r.id(), r.goal(), r.target(), r.value(), r.unit(), r.rows(), r.status(), r.detail()
                + String.format(Locale.ROOT, " (this JVM only: %.0f / %.0f = %.2f x)", fo, so, fo / so));
    }

    /**
     * Goal: machine CPU per read-only action with two gate instances (row g2) within 10 % of one's (row g1): a
     * second instance adds no coordination cost. The 2-core machine cannot show throughput scaling, but this it can.
     */
    private static Result cpuTwoGates(Map<String, BenchRow> byId) {
        return cpuRatio(byId, "cpu_two_gates", "machine CPU per read-only action, 2 gate instances vs 1", "g2", "g1",
                1.10, "<= 1.10 x");
    }

    /** Row {@code row}'s machine CPU per action over row {@code base}'s, met at most {@code max} ({@code target}). */
    private static Result cpuRatio(Map<String, BenchRow> byId, String id, String goal, String row, String base,
                                   double max, String target) {
        Double a = cpuNote(byId.get(row), "machine");
        Double b = cpuNote(byId.get(base), "machine");
        if (a == null || b == null) {
            return new Result(id, goal, target, null, "x", List.of(row, base), Status.NOT_MEASURED,
                    "no row " + (a == null ? row : base) + " with a CPU figure");
        }
        double r = a / b;
        return new Result(id, goal, target, r, "x", List.of(row, base), r <= max ? Status.MET : Status.NOT_MET,
                String.format(Locale.ROOT, "%s %.0f us / %s %.0f us = %.2f x", row, a, base, b, r));
    }

    private static Result ratio(Map<String, BenchRow> byId, String id, String goal, String row, String base,
                                double min, String unit) {
        String target = String.format(Locale.ROOT, ">= %.1f x", min);
        Optional<String> missing = missing(byId, row, base);
        if (missing.isPresent()) {
            return new Result(id, goal, target, null, unit, List.of(row, base), Status.NOT_MEASURED, missing.get());
        }
        double a = byId.get(row).throughput();
        double b = byId.get(base).throughput();
        if (!(a > 0) || !(b > 0)) {
            return new Result(id, goal, target, null, unit, List.of(row, base), Status.NOT_MEASURED,
                    "no throughput in row " + (a > 0 ? base : row));
        }
        double r = a / b;
        String detail = String.format(Locale.ROOT, "%s %.0f/s / %s %.0f/s = %.2f x", row, a, base, b, r);
        return new Result(id, goal, target, r, unit, List.of(row, base), r >= min ? Status.MET : Status.NOT_MET,
                detail);
    }

    private static Result latency(Map<String, BenchRow> byId, String id, String goal, String row, String which,
                                  Function<BenchRow.Latency, Double> pick, double maxMs) {
        String target = String.format(Locale.ROOT, "<= %.0f ms", maxMs);
        BenchRow r = byId.get(row);
        if (r == null) {
            return new Result(id, goal, target, null, "ms", List.of(row), Status.NOT_MEASURED, "no row " + row);
        }
        Double ms = r.latency() == null ? null : pick.apply(r.latency());
        if (ms == null || ms.isNaN()) {
            return new Result(id, goal, target, null, "ms", List.of(row), Status.NOT_MEASURED,
                    "row " + row + " has no latency");
        }
        return new Result(id, goal, target, ms, "ms", List.of(row), ms <= maxMs ? Status.MET : Status.NOT_MET,
                String.format(Locale.ROOT, "%s %s %.0f ms", row, which, ms));
    }

    /**
     * Row dv when it ran (decisions applied by one gate stream thread on the broker); else row c2, whose figure is
     * TopologyTestDriver's (its own per-record overhead included), and the detail says so.
     */
    private static Result throughput(Map<String, BenchRow> byId) {
        String id = "approval_decisions";
        String goal = "verified approval decisions/s on one stream thread";
        String target = ">= 5,000 /s";
        String row = byId.containsKey("dv") ? "dv" : "c2";
        BenchRow r = byId.get(row);
        if (r == null) {
            return new Result(id, goal, target, null, "/s", List.of("dv", "c2"), Status.NOT_MEASURED,
                    "no row dv, no row c2");
        }
        if (!(r.throughput() > 0)) {
            return new Result(id, goal, target, null, "/s", List.of(row), Status.NOT_MEASURED,
                    "no throughput in row " + row);
        }
        String detail = row.equals("dv")
                ? String.format(Locale.ROOT, "dv %.0f decisions/s applied by one stream thread", r.throughput())
                : String.format(Locale.ROOT, "c2 %.0f decisions/s: TopologyTestDriver's figure (row dv did not run)",
                        r.throughput());
        return new Result(id, goal, target, r.throughput(), "/s", List.of(row),
                r.throughput() >= 5000 ? Status.MET : Status.NOT_MET, detail);
    }

    private static Result memory(Map<String, BenchRow> byId) {
        String id = "gate_heap";
        String goal = "gate heap with 1,000,000 retained actions";
        String target = "<= 512 MiB";
        BenchRow r = byId.get("m");
        String heap = r == null ? null : r.notes().get("heap_mib");
        Double mib = null;
        try {
            mib = heap == null ? null : Double.valueOf(heap);
        } catch (NumberFormatException e) {
            // not measured: the row carries no number
        }
        if (mib == null) {
            return new Result(id, goal, target, null, "MiB", List.of("m"), Status.NOT_MEASURED,
                    r == null ? "no row m" : "row m has no numeric note heap_mib");
        }
        String detail = String.format(Locale.ROOT, "m heap %.0f MiB with %,d retained actions", mib, r.actions());
        if (r.actions() < MEMORY_ACTIONS) {
            // a heap figure at a smaller size says nothing about the goal's size
            return new Result(id, goal, target, mib, "MiB", List.of("m"), Status.NOT_MEASURED, detail
                    + String.format(Locale.ROOT, ", not the goal's %,d", MEMORY_ACTIONS));
        }
        return new Result(id, goal, target, mib, "MiB", List.of("m"), mib <= 512 ? Status.MET : Status.NOT_MET,
                detail);
    }

    private static Optional<String> missing(Map<String, BenchRow> byId, String... ids) {
        List<String> absent = java.util.Arrays.stream(ids).filter(i -> !byId.containsKey(i)).toList();
        return absent.isEmpty() ? Optional.empty()
                : Optional.of("no row " + String.join(", no row ", absent));
    }

    /** The fastest pg row of one durability setting. */
    public static Optional<BenchRow> best(List<BenchRow> rows, boolean fsync) {
        return rows.stream().filter(r -> r.id().matches(fsync ? "pg\\d+s" : "pg\\d*"))
                .max(java.util.Comparator.comparingDouble(BenchRow::throughput));
    }
}
