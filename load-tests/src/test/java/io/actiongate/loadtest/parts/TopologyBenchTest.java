package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ResultRole;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.results.SingleShotResult;

/**
 * How part topology reads JMH's results: a round's time in nanoseconds, and the {@code ok} count {@link RoundCheck}
 * carries out of the forked JVM, lowest over the rounds, so one short round fails the row's invariant.
 */
class TopologyBenchTest {

    private static final String BENCHMARK = TopologyBenchmarks.class.getName() + ".c2_approvalDecision";

    private static final int ACTIONS = 200;

    private final TopologyBench bench = new TopologyBench(200, 3, 1, Path.of("unused"));

    @TempDir
    Path stateDir;

    @Test
    void shouldBringEveryActionOfEveryRowToItsExpectedStateInThisJvm() {
        // no fork (quick); TopologyForksIT runs the rows in forked JVMs as the bench jar does
        assertEveryRowComplete(new TopologyBench(ACTIONS, 1, 0, stateDir));
    }

    /**
     * Runs {@code bench} (one measured round) and asserts that every row ran its round and brought every action to
     * the state it claims to measure, or its figures would describe some other work (a rejection path is much
     * cheaper than a reservation).
     */
    static void assertEveryRowComplete(TopologyBench bench) {
        AtomicInteger rounds = new AtomicInteger();

        List<TopologyBench.Row> rows = bench.run(rounds::incrementAndGet);

        assertThat(rows).extracting(TopologyBench.Row::id).containsExactlyElementsOf(TopologyBench.ROWS);
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.verified()).as("row %s actions in the expected state", row.id()).isEqualTo(row.actions());
            assertThat(row.nanos()).as("row %s measured rounds", row.id()).hasSize(1).allMatch(n -> n > 0);
        });
        assertThat(rounds).as("rounds JMH ran, warm-up included").hasValue(bench.totalRounds());
    }

    @Test
    void shouldTakeEachRoundsTimeAndTheLowestCountOfActionsInTheExpectedState() {
        TopologyBench.Row row = bench.row(BENCHMARK, List.of(round(3_000_000, 200), round(2_000_000, 199),
                round(4_000_000, 200)));

        assertThat(row.id()).isEqualTo("c2");
        assertThat(row.what()).isEqualTo(TopologyBench.WHAT.get("c2"));
        assertThat(row.nanos()).containsExactly(3_000_000L, 2_000_000L, 4_000_000L);
        assertThat(row.median()).isEqualTo(3_000_000L);
        assertThat(row.verified()).as("one short round makes the row short").isEqualTo(199);
    }

    @Test
    void shouldCountNoActionVerifiedWhenARoundReportedNoCountOrNoRoundRan() {
        assertThat(bench.row(BENCHMARK, List.of(round(1_000_000, 200), untracked(1_000_000))).verified()).isZero();
        assertThat(bench.row(BENCHMARK, List.of(round(1_000_000, -1))).verified())
                .as("a round whose tear-down never counted").isZero();
        assertThat(bench.row(BENCHMARK, List.of()).verified()).isZero();
    }

    @Test
    void shouldNameEveryRowOfTheTableByItsBenchmark() {
        assertThat(List.of("a_baseline", "b_readOnlyPath", "c_approvalPath", "c1_approvalProposal",
                "c2_approvalDecision", "d_outcome"))
                .extracting(m -> TopologyBenchmarks.rowOf(TopologyBenchmarks.class.getName() + "." + m))
                .containsExactlyElementsOf(TopologyBench.ROWS);
        assertThat(bench.totalRounds()).isEqualTo(6 * (1 + 3));
        assertThat(new TopologyBench(200, 3, 0, Path.of("unused")).totalRounds()).isEqualTo(6 * (1 + 3));
    }

    @Test
    void shouldReportTheCountAsTheRoundsResultWhileTheProfilerRuns() {
        RoundCheck check = new RoundCheck();
        check.beforeIteration(null, null);
        RoundCheck.record("b", 7, 10);

        List<? extends Result<?>> results = List.copyOf(check.afterIteration(null, null, null));

        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.getLabel()).isEqualTo(RoundCheck.LABEL);
            assertThat(r.getScore()).isEqualTo(7.0);
        });
    }

    @Test
    void shouldFailAShortRoundWhenNoProfilerReportsIt() {
        RoundCheck.record("b", 10, 10);
        assertThatThrownBy(() -> RoundCheck.record("b", 9, 10)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("row b: 9 of 10 actions ended in the row's expected state");
    }

    @Test
    void shouldReportARoundNoTearDownCountedAsMissing() {
        RoundCheck check = new RoundCheck();
        check.beforeIteration(null, null);

        assertThat(List.copyOf(check.afterIteration(null, null, null))).singleElement()
                .satisfies(r -> assertThat(r.getScore()).isEqualTo(-1.0));
    }

    private static IterationResult round(long nanos, int ok) {
        IterationResult round = untracked(nanos);
        round.addResult(new ScalarResult(RoundCheck.LABEL, ok, "actions",
                AggregationPolicy.MIN));
        return round;
    }

    private static IterationResult untracked(long nanos) {
        IterationResult round = new IterationResult(null, null, null);
        round.addResult(new SingleShotResult(ResultRole.PRIMARY, "round", nanos, 1, TimeUnit.NANOSECONDS));
        return round;
    }
}
