package io.actiongate.loadtest.parts;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.streams.TestInputTopic;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import io.actiongate.avro.ReceiptStatus;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.baselines.PassThroughTopology;
import io.actiongate.loadtest.harness.Drivers;
import io.actiongate.loadtest.harness.Workload;

/**
 * Rows a to d of part topology as JMH benchmarks: the gate's topology per action against the pass-through
 * baseline, in a {@link org.apache.kafka.streams.TopologyTestDriver} (no broker, one thread, deterministic).
 * <p>
 * One measured operation is a whole round: every one of {@code actions} pre-encoded records piped through a fresh
 * driver with empty stores ({@link Mode#SingleShotTime}: one invocation per iteration, so the driver built in the
 * {@link Level#Iteration} setup is also a per-invocation setup, untimed, without {@code Level.Invocation}'s
 * timestamping). A round takes tens of milliseconds (a) to seconds (c), far above the timer's resolution. Piping
 * a record returns nothing and changes the driver's stores and output queues, so there is no result a compiler
 * could drop and nothing for a {@code Blackhole} to consume.
 * <p>
 * Each row checks after its round (in the untimed tear-down) how many actions ended in the state the row claims
 * to measure: a rejection is much cheaper than a reservation, so a row whose actions did not all get there
 * describes other work. {@link RoundCheck} reports the count as each round's {@code ok} result, which
 * {@link TopologyBench} turns into the report's {@code ok} column; without that profiler a shortfall fails the
 * round.
 * <p>
 * Defaults for a 2-core machine: one fork per row (a fresh JVM, so one row's JIT profile cannot shape another's),
 * one warm-up round (at least {@code actions} calls of every hot method, past C2's compile thresholds), five
 * measured rounds; {@link TopologyBench} sets the rounds from {@code --rounds}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(TopologyBenchmarks.FORKS)
@Warmup(iterations = TopologyBenchmarks.WARMUP_ROUNDS)
@Measurement(iterations = TopologyBenchmarks.ROUNDS)
public class TopologyBenchmarks {

    public static final int FORKS = 1;
    public static final int WARMUP_ROUNDS = 1;
    public static final int ROUNDS = 5;
    /** The {@code @Param} that sets the actions per round. */
    public static final String ACTIONS_PARAM = "actions";
    /** Where each driver's RocksDB stores go (a system property of the forked JVM); else {@code java.io.tmpdir}. */
    public static final String STATE_DIR_PROPERTY = "actiongate.bench.state-dir";

    /** The system property naming logback's configuration file. */
    public static final String LOGBACK_CONFIGURATION = "logback.configurationFile";

    static {
        useBenchLogging();
    }

    /**
     * The benchmark's logging configuration (warnings only) in a JVM started by a plain JMH command line, before
     * anything creates a logger: without it logback logs Kafka's debug lines, and the rounds would time the console.
     */
    static void useBenchLogging() {
        if (System.getProperty(LOGBACK_CONFIGURATION) == null) {
            System.setProperty(LOGBACK_CONFIGURATION, "logback-bench.xml");
        }
    }

    private static final Instant OUTCOME_AT = Instant.parse("2026-03-01T12:00:01Z");

    /**
     * The encoded records of every row, built once per fork (signing thousands of decisions takes a while) and
     * replayed in every round: each round's driver starts with empty stores, so the same keys are new to it.
     */
    @State(Scope.Benchmark)
    public static class Records {
        static {
            useBenchLogging(); // JMH creates this state before the benchmark's own instance
        }

        @Param("20000")
        public int actions;

        private final Workload workload = new Workload("T-bench");
        private final Map<String, Workload.Encoded> cache = new HashMap<>();

        Workload.Encoded readOnlyProposals() {
            return cache.computeIfAbsent("read", k -> workload.proposals("r", Workload.READ_TOOL, actions,
                    Drivers.START));
        }

        Workload.Encoded approvalProposals() {
            return cache.computeIfAbsent("send", k -> workload.proposals("s", Workload.SEND_TOOL, actions,
                    Drivers.START));
        }

        Workload.Encoded approvals() {
            return cache.computeIfAbsent("approve", k -> workload.approvals("s", Workload.SEND_TOOL, actions,
                    Drivers.START, Drivers.START));
        }

        Workload.Encoded outcomes() {
            return cache.computeIfAbsent("outcomes", k -> workload.outcomes("r", actions, OUTCOME_AT));
        }

        Drivers.Run gate() {
            return Drivers.gate(workload, stateRoot());
        }
    }

    /**
     * One round of one row: a fresh driver opened before the timed invocation, checked and closed after it. The
     * timed invocation pipes {@code timed} into {@code in}.
     */
    public abstract static class Round {
        Drivers.Run run;
        int actions;
        TestInputTopic<String, byte[]> in;
        Workload.Encoded timed;

        /** Opens this round's driver and pipes what precedes the timed records (untimed). */
        abstract void open(Records records);

        /** The actions that ended as expected, read from the driver's outputs after the timed records. */
        abstract int verified();

        @Setup(Level.Iteration)
        public void setUp(Records records) {
            actions = records.actions;
            open(records);
        }

        @TearDown(Level.Iteration)
        public void check(BenchmarkParams params) {
            try {
                RoundCheck.record(rowOf(params.getBenchmark()), verified(), actions);
            } finally {
                run.close();
            }
        }
    }

    /** Row a: the pass-through baseline reads the read-only proposals. */
    @State(Scope.Thread)
    public static class Baseline extends Round {
        @Override
        void open(Records records) {
            timed = records.readOnlyProposals();
            run = new Drivers.Run(PassThroughTopology.build(Drivers.BASELINE_IN, Drivers.BASELINE_OUT),
                    "bench-baseline", stateRoot());
            in = run.input(Drivers.BASELINE_IN);
        }

        @Override
        int verified() {
            return (int) run.drainCount(Drivers.BASELINE_OUT);
        }
    }

    /** Row b: read-only proposals, each to its reservation. */
    @State(Scope.Thread)
    public static class ReadOnly extends Round {
        @Override
        void open(Records records) {
            timed = records.readOnlyProposals();
            run = records.gate();
            in = run.input(topic(Topics.PROPOSALS));
        }

        @Override
        int verified() {
            int dispatching = countLast(run.lastReceiptStatus(prefix()), ReceiptStatus.DISPATCHING);
            int reserved = (int) run.drainCount(topic(Topics.ATTEMPTS));
            return Math.min(dispatching, reserved);
        }
    }

    /** Row c: approval proposals ({@code timed}), then their signed approvals, both timed. */
    @State(Scope.Thread)
    public static class Approval extends Round {
        TestInputTopic<String, byte[]> decisionsIn;
        Workload.Encoded decisions;

        @Override
        void open(Records records) {
            timed = records.approvalProposals();
            decisions = records.approvals();
            run = records.gate();
            in = run.input(topic(Topics.PROPOSALS));
            decisionsIn = run.input(topic(Topics.DECISIONS));
        }

        /** Actions that waited for approval and then were reserved, with nothing dead-lettered. */
        @Override
        int verified() {
            Map<String, List<ReceiptStatus>> receipts = run.receiptStatuses(prefix());
            int waitedThenDispatching = (int) receipts.values().stream()
                    .filter(s -> s.contains(ReceiptStatus.WAITING_APPROVAL)
                            && s.get(s.size() - 1) == ReceiptStatus.DISPATCHING)
                    .count();
            return approved(run, waitedThenDispatching);
        }
    }

    /** Row c1: approval proposals, each to WAITING_APPROVAL. */
    @State(Scope.Thread)
    public static class ApprovalProposal extends Round {
        @Override
        void open(Records records) {
            timed = records.approvalProposals();
            run = records.gate();
            in = run.input(topic(Topics.PROPOSALS));
        }

        @Override
        int verified() {
            return countLast(run.lastReceiptStatus(prefix()), ReceiptStatus.WAITING_APPROVAL);
        }
    }

    /** Row c2: signed approvals of actions proposed beforehand (untimed), each to its reservation. */
    @State(Scope.Thread)
    public static class ApprovalDecision extends Round {
        int waiting;

        @Override
        void open(Records records) {
            timed = records.approvals();
            run = records.gate();
            run.pipe(topic(Topics.PROPOSALS), records.approvalProposals());
            waiting = countLast(run.lastReceiptStatus(prefix()), ReceiptStatus.WAITING_APPROVAL);
            in = run.input(topic(Topics.DECISIONS));
        }

        @Override
        int verified() {
            int dispatching = countLast(run.lastReceiptStatus(prefix()), ReceiptStatus.DISPATCHING);
            return Math.min(waiting, approved(run, dispatching));
        }
    }

    /** Row d: SUCCEEDED outcomes of actions reserved beforehand (untimed), each to SUCCEEDED. */
    @State(Scope.Thread)
    public static class Outcome extends Round {
        int reserved;

        @Override
        void open(Records records) {
            timed = records.outcomes();
            run = records.gate();
            run.pipe(topic(Topics.PROPOSALS), records.readOnlyProposals());
            reserved = countLast(run.lastReceiptStatus(prefix()), ReceiptStatus.DISPATCHING);
            run.drain(topic(Topics.ATTEMPTS));
            in = run.input(topic(Topics.OUTCOMES));
        }

        @Override
        int verified() {
            return Math.min(reserved, countLast(run.lastReceiptStatus(prefix()), ReceiptStatus.SUCCEEDED));
        }
    }

    @Benchmark
    public void a_baseline(Baseline round) {
        Drivers.pipe(round.in, round.timed);
    }

    @Benchmark
    public void b_readOnlyPath(ReadOnly round) {
        Drivers.pipe(round.in, round.timed);
    }

    @Benchmark
    public void c_approvalPath(Approval round) {
        Drivers.pipe(round.in, round.timed);
        Drivers.pipe(round.decisionsIn, round.decisions);
    }

    @Benchmark
    public void c1_approvalProposal(ApprovalProposal round) {
        Drivers.pipe(round.in, round.timed);
    }

    @Benchmark
    public void c2_approvalDecision(ApprovalDecision round) {
        Drivers.pipe(round.in, round.timed);
    }

    @Benchmark
    public void d_outcome(Outcome round) {
        Drivers.pipe(round.in, round.timed);
    }

    /** The row id a benchmark of this class measures: its method name up to the underscore. */
    public static String rowOf(String benchmark) {
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        return method.substring(0, method.indexOf('_'));
    }

    static Path stateRoot() {
        return Path.of(System.getProperty(STATE_DIR_PROPERTY, System.getProperty("java.io.tmpdir")));
    }

    private static String prefix() {
        return Topics.DEFAULT_PREFIX;
    }

    private static String topic(TopicSpec<?, ?> topic) {
        return topic.name(prefix());
    }

    private static int countLast(Map<String, ReceiptStatus> last, ReceiptStatus expected) {
        return (int) last.values().stream().filter(s -> s == expected).count();
    }

    /** {@code dispatching} when every one of them was reserved and nothing went to the dead letters, else 0. */
    private static int approved(Drivers.Run run, int dispatching) {
        int reserved = (int) run.drainCount(topic(Topics.ATTEMPTS));
        int deadLetters = (int) run.drainCount(topic(Topics.DEAD_LETTERS));
        return deadLetters == 0 ? Math.min(dispatching, reserved) : 0;
    }
}
