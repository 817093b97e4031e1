package io.actiongate.loadtest.parts;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

import io.actiongate.loadtest.report.Stats;

/**
 * Part topology's runner: times rows a to d ({@link TopologyBenchmarks}) through JMH's {@link Runner}, in forked
 * JVMs of their own, and turns JMH's per-iteration results into the table's rows: each measured round's time, and the lowest
 * count over the rounds of actions that ended in the row's expected state. A row's median comes from its own
 * rounds (the median of (c) is not the sum of the medians of (c1) and (c2)).
 */
public final class TopologyBench {

    /** A row of the table: a scenario or one phase of it. */
    public record Row(String id, String what, int actions, List<Long> nanos, int verified) {
        public long median() {
            return Stats.median(nanos);
        }

        public double actionsPerSecond() {
            return actions * 1e9 / median();
        }
    }

    /** The rows in table order. */
    public static final List<String> ROWS = List.of("a", "b", "c", "c1", "c2", "d");

    public static final Map<String, String> WHAT = Map.of(
            "a", "baseline: decode ActionProposal, write a Receipt (Streams + Avro only)",
            "b", "read-only path: proposal -> admission, policy, scan, digests -> reservation",
            "c", "approval path: (c1) + (c2), two records per action",
            "c1", "  proposal -> WAITING_APPROVAL",
            "c2", "  signed APPROVE -> verify, recheck -> reservation",
            "d", "outcome: SUCCEEDED outcome of a reserved action -> SUCCEEDED");

    private final int actions;
    private final int rounds;
    private final int forks;
    private final Path stateRoot;

    /**
     * @param forks JVMs per row, each running the warm-up round and {@code rounds}; 0 runs every row in this JVM
     *              (quicker to start, but one row's JIT profile then shapes the next's)
     */
    public TopologyBench(int actions, int rounds, int forks, Path stateRoot) {
        this.actions = actions;
        this.rounds = rounds;
        this.forks = forks;
        this.stateRoot = stateRoot;
    }

    /** How many rounds JMH runs in all (warm-up included), for a progress bar. */
    public int totalRounds() {
        return ROWS.size() * Math.max(1, forks) * (TopologyBenchmarks.WARMUP_ROUNDS + rounds);
    }

    /** Runs every row; {@code roundDone} is called after each round (warm-up included). Rows in table order. */
    public List<Row> run(Runnable roundDone) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream jmhOut = new PrintStream(log, true, StandardCharsets.UTF_8);
        Collection<RunResult> results;
        try {
            results = new Runner(options(), new RoundListener(
                    OutputFormatFactory.createFormatInstance(jmhOut, VerboseMode.NORMAL), roundDone)).run();
        } catch (RunnerException e) {
            throw new IllegalStateException("the JMH run of part topology failed: " + e.getMessage() + "\n"
                    + log.toString(StandardCharsets.UTF_8), e);
        }
        Map<String, Row> byId = new HashMap<>();
        for (RunResult result : results) {
            Row row = row(result);
            byId.put(row.id(), row);
        }
        if (!byId.keySet().containsAll(ROWS)) {
            throw new IllegalStateException("the JMH run of part topology measured rows " + byId.keySet()
                    + ", not " + ROWS + ":\n" + log.toString(StandardCharsets.UTF_8));
        }
        return ROWS.stream().map(byId::get).toList();
    }

    Options options() {
        List<String> jvmArgs = new ArrayList<>();
        jvmArgs.add("-D" + TopologyBenchmarks.STATE_DIR_PROPERTY + "=" + stateRoot);
        // this JVM's logging configuration, which Benchmark's main sets as a property, not a JVM argument
        jvmArgs.add("-D" + TopologyBenchmarks.LOGBACK_CONFIGURATION + "=" + System.getProperty(
                TopologyBenchmarks.LOGBACK_CONFIGURATION, "logback-bench.xml"));
        String log = System.getProperty("actiongate.bench.log");
        if (log != null) {
            jvmArgs.add("-Dactiongate.bench.log=" + log);
        }
        return new OptionsBuilder()
                .include("^" + Pattern.quote(TopologyBenchmarks.class.getName() + ".") + "\\w+$")
                .param(TopologyBenchmarks.ACTIONS_PARAM, String.valueOf(actions))
                .warmupIterations(TopologyBenchmarks.WARMUP_ROUNDS)
                .measurementIterations(rounds)
                .timeUnit(TimeUnit.NANOSECONDS) // each round's time in the unit of Row.nanos
                .forks(forks)
                .jvmArgsAppend(jvmArgs.toArray(String[]::new))
                .addProfiler(RoundCheck.class)
                .shouldFailOnError(true)
                .build();
    }

    /** One row from one benchmark's results: every measured round's time and the lowest {@code ok} count. */
    Row row(RunResult result) {
        List<IterationResult> rounds = new ArrayList<>();
        for (BenchmarkResult fork : result.getBenchmarkResults()) {
            rounds.addAll(fork.getIterationResults());
        }
        return row(result.getParams().getBenchmark(), rounds);
    }

    /**
     * The row of benchmark {@code benchmark} from its measured rounds: each one's time, and as verified the
     * lowest count {@link RoundCheck} reported (none reported, or no round, counts as none verified).
     */
    Row row(String benchmark, List<IterationResult> rounds) {
        String id = TopologyBenchmarks.rowOf(benchmark);
        List<Long> nanos = new ArrayList<>();
        int verified = rounds.isEmpty() ? 0 : actions;
        for (IterationResult round : rounds) {
            nanos.add(Math.round(round.getPrimaryResult().getScore()));
            Result<?> ok = round.getSecondaryResults().get(RoundCheck.LABEL);
            verified = Math.min(verified, ok == null ? 0 : Math.max(0, (int) ok.getScore()));
        }
        return new Row(id, WHAT.get(id), actions, nanos, verified);
    }

    /** JMH's output (kept for an error message), and a call after every round for the progress bar. */
    private static final class RoundListener implements OutputFormat {
        private final OutputFormat delegate;
        private final Runnable roundDone;

        RoundListener(OutputFormat delegate, Runnable roundDone) {
            this.delegate = delegate;
            this.roundDone = roundDone;
        }

        @Override
        public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
            delegate.iteration(benchParams, params, iteration);
        }

        @Override
        public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration,
                IterationResult data) {
            delegate.iterationResult(benchParams, params, iteration, data);
            roundDone.run();
        }

        @Override
        public void startBenchmark(BenchmarkParams benchParams) {
            delegate.startBenchmark(benchParams);
        }

        @Override
        public void endBenchmark(BenchmarkResult result) {
            delegate.endBenchmark(result);
        }

        @Override
        public void startRun() {
            delegate.startRun();
        }

        @Override
        public void endRun(Collection<RunResult> result) {
            delegate.endRun(result);
        }

        @Override
        public void print(String s) {
            delegate.print(s);
        }

        @Override
        public void println(String s) {
            delegate.println(s);
        }

        @Override
        public void flush() {
            delegate.flush();
        }

        @Override
        public void close() {
            delegate.close();
        }

        @Override
        public void verbosePrintln(String s) {
            delegate.verbosePrintln(s);
        }

        @Override
        public void write(int b) {
            delegate.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            delegate.write(b);
        }
    }
}
