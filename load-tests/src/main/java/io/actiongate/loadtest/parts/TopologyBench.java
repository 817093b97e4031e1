package io.actiongate.loadtest.parts;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.actiongate.avro.ReceiptStatus;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.baselines.PassThroughTopology;
import io.actiongate.loadtest.harness.Drivers;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.Stats;

/**
 * Part 1: the cost of the gate's topology per action against the pass-through baseline, in a
 * {@link org.apache.kafka.streams.TopologyTestDriver} (no broker, one thread, deterministic). Each scenario gets a
 * fresh driver and fresh stores per round; records are encoded before the clock starts and checked after it stops.
 * Rounds interleave the scenarios (a, b, c, d, a, b, ...) so a burst of load from other processes on a shared
 * machine hits every row alike, which is what keeps the ratios meaningful. The rows' medians come from the same
 * number of rounds, each taken on its own (the median of (c) is not the sum of the medians of (c1) and (c2)).
 */
public final class TopologyBench {

    /** One timed phase of one scenario round and how many actions ended as expected. */
    public record Round(long nanos, int verified) {
    }

    /** A row of the table: a scenario or one phase of it. */
    public record Row(String id, String what, int actions, List<Long> nanos, int verified) {
        public long median() {
            return Stats.median(nanos);
        }

        public double actionsPerSecond() {
            return actions * 1e9 / median();
        }
    }

    private interface Scenario {
        /** Runs once over {@code n} actions in a fresh driver; returns the timed phases in order. */
        Map<String, Round> run(Inputs inputs, int n, Path stateRoot);
    }

    /**
     * The encoded records of every scenario, built once (signing thousands of decisions takes a while) and
     * replayed in every round: each round's driver starts with empty stores, so the same keys are new to it.
     */
    public static final class Inputs {
        private final Workload workload = new Workload("T-bench");
        private final Map<String, Workload.Encoded> cache = new HashMap<>();
        private final int n;

        public Inputs(int n) {
            this.n = n;
        }

        public Workload workload() {
            return workload;
        }

        public Workload.Encoded readOnlyProposals() {
            return cache.computeIfAbsent("read", k -> workload.proposals("r", Workload.READ_TOOL, n, Drivers.START));
        }

        public Workload.Encoded approvalProposals() {
            return cache.computeIfAbsent("send", k -> workload.proposals("s", Workload.SEND_TOOL, n, Drivers.START));
        }

        public Workload.Encoded approvals() {
            return cache.computeIfAbsent("approve", k -> workload.approvals("s", Workload.SEND_TOOL, n, Drivers.START,
                    Drivers.START));
        }

        public Workload.Encoded outcomes() {
            return cache.computeIfAbsent("outcomes", k -> workload.outcomes("r", n, OUTCOME_AT));
        }
    }

    private static final Instant OUTCOME_AT = Instant.parse("2026-03-01T12:00:01Z");

    private final int actions;
    private final int rounds;
    private final Path stateRoot;

    public TopologyBench(int actions, int rounds, Path stateRoot) {
        this.actions = actions;
        this.rounds = rounds;
        this.stateRoot = stateRoot;
    }

    /** Warm-up pass over every scenario, then {@code rounds} interleaved measured rounds; rows in table order. */
    public List<Row> run() {
        Inputs inputs = new Inputs(actions);
        Map<String, Scenario> scenarios = new LinkedHashMap<>();
        scenarios.put("a", TopologyBench::baseline);
        scenarios.put("b", TopologyBench::readOnly);
        scenarios.put("c", TopologyBench::approval);
        scenarios.put("d", TopologyBench::outcomes);

        Map<String, List<Long>> nanos = new LinkedHashMap<>();
        Map<String, Integer> verified = new LinkedHashMap<>();
        for (int round = 0; round <= rounds; round++) {
            for (Scenario s : scenarios.values()) {
                Map<String, Round> phases = s.run(inputs, actions, stateRoot);
                if (round == 0) {
                    continue; // warm-up: JIT, class loading, RocksDB's first open
                }
                phases.forEach((id, r) -> {
                    nanos.computeIfAbsent(id, k -> new ArrayList<>()).add(r.nanos());
                    verified.merge(id, r.verified(), Math::min);
                });
            }
        }
        List<Row> rows = new ArrayList<>();
        nanos.forEach((id, list) -> rows.add(new Row(id, WHAT.get(id), actions, list, verified.get(id))));
        return rows;
    }

    public static final Map<String, String> WHAT = Map.of(
            "a", "baseline: decode ActionProposal, write a Receipt (Streams + Avro only)",
            "b", "read-only path: proposal -> admission, policy, scan, digests -> reservation",
            "c", "approval path: (c1) + (c2), two records per action",
            "c1", "  proposal -> WAITING_APPROVAL",
            "c2", "  signed APPROVE -> verify, recheck -> reservation",
            "d", "outcome: SUCCEEDED outcome of a reserved action -> SUCCEEDED");

    private static String prefix() {
        return Topics.DEFAULT_PREFIX;
    }

    private static Map<String, Round> baseline(Inputs inputs, int n, Path stateRoot) {
        Workload.Encoded in = inputs.readOnlyProposals();
        try (Drivers.Run run = baselineRun(stateRoot)) {
            long t = run.timed(Drivers.BASELINE_IN, in);
            int out = (int) run.drainCount(Drivers.BASELINE_OUT);
            return Map.of("a", new Round(t, out));
        }
    }

    private static Map<String, Round> readOnly(Inputs inputs, int n, Path stateRoot) {
        Workload.Encoded in = inputs.readOnlyProposals();
        try (Drivers.Run run = Drivers.gate(inputs.workload(), stateRoot)) {
            long t = run.timed(Topics.PROPOSALS.name(prefix()), in);
            int ok = count(run.lastReceiptStatus(prefix()), s -> s == ReceiptStatus.DISPATCHING);
            int reserved = (int) run.drainCount(Topics.ATTEMPTS.name(prefix()));
            return Map.of("b", new Round(t, Math.min(ok, reserved)));
        }
    }

    private static Map<String, Round> approval(Inputs inputs, int n, Path stateRoot) {
        Workload.Encoded proposals = inputs.approvalProposals();
        Workload.Encoded decisions = inputs.approvals();
        try (Drivers.Run run = Drivers.gate(inputs.workload(), stateRoot)) {
            long t1 = run.timed(Topics.PROPOSALS.name(prefix()), proposals);
            int waiting = count(run.lastReceiptStatus(prefix()), s -> s == ReceiptStatus.WAITING_APPROVAL);
            long t2 = run.timed(Topics.DECISIONS.name(prefix()), decisions);
            int dispatching = count(run.lastReceiptStatus(prefix()), s -> s == ReceiptStatus.DISPATCHING);
            int reserved = (int) run.drainCount(Topics.ATTEMPTS.name(prefix()));
            int deadLetters = (int) run.drainCount(Topics.DEAD_LETTERS.name(prefix()));
            int approved = deadLetters == 0 ? Math.min(dispatching, reserved) : 0;
            Map<String, Round> phases = new LinkedHashMap<>();
            phases.put("c", new Round(t1 + t2, Math.min(waiting, approved)));
            phases.put("c1", new Round(t1, waiting));
            phases.put("c2", new Round(t2, approved));
            return phases;
        }
    }

    private static Map<String, Round> outcomes(Inputs inputs, int n, Path stateRoot) {
        Workload.Encoded proposals = inputs.readOnlyProposals();
        Workload.Encoded outcomes = inputs.outcomes();
        try (Drivers.Run run = Drivers.gate(inputs.workload(), stateRoot)) {
            run.untimed(Topics.PROPOSALS.name(prefix()), proposals);
            int reserved = count(run.lastReceiptStatus(prefix()), s -> s == ReceiptStatus.DISPATCHING);
            run.drain(Topics.ATTEMPTS.name(prefix()));
            long t = run.timed(Topics.OUTCOMES.name(prefix()), outcomes);
            int succeeded = count(run.lastReceiptStatus(prefix()), s -> s == ReceiptStatus.SUCCEEDED);
            return Map.of("d", new Round(t, Math.min(reserved, succeeded)));
        }
    }

    private static int count(Map<String, ReceiptStatus> last, Predicate<ReceiptStatus> expected) {
        return (int) last.values().stream().filter(expected).count();
    }

    /** Row a's driver: the pass-through baseline. */
    private static Drivers.Run baselineRun(Path stateRoot) {
        return new Drivers.Run(PassThroughTopology.build(Drivers.BASELINE_IN, Drivers.BASELINE_OUT), "bench-baseline",
                stateRoot);
    }
}
