package io.actiongate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The goal lines (and the first goals' heap goal) on crafted rows: MET, NOT MET, or not measured. */
class GoalsTest {

    private static BenchRow row(String id, double throughput) {
        return new BenchRow("x", id, id, 100, 100, throughput, null, null, Map.of());
    }

    private static BenchRow latencyRow(String id, double p50, double p99) {
        return new BenchRow("x", id, id, 100, 100, 10, new BenchRow.Latency(p50, p50, p99, p99), null, Map.of());
    }

    private static BenchRow memoryRow(int actions, String heapMib) {
        return new BenchRow("memory", "m", "m", actions, actions, 0, null, null, Map.of("heap_mib", heapMib));
    }

    private static Goals.Status status(List<BenchRow> rows, String goal) {
        return Goals.evaluate(rows).stream().filter(g -> g.id().equals(goal)).findFirst().orElseThrow().status();
    }

    @Test
    void shouldCompareWithTheBestPostgresRowOfEqualDurability() {
        List<BenchRow> rows = List.of(row("f", 300), row("pg8", 100), row("pg32", 250), row("pg64", 190),
                row("fs", 200), row("pg8s", 90), row("pg64s", 120));
        assertThat(status(rows, "postgres_baseline")).isEqualTo(Goals.Status.NOT_MET); // 300 / 250 < 1.5
        assertThat(status(rows, "postgres_baseline_fsync")).isEqualTo(Goals.Status.MET); // 200 / 120 >= 1.5
        assertThat(Goals.evaluate(rows)).filteredOn(g -> g.id().equals("postgres_baseline")).singleElement()
                .satisfies(g -> assertThat(g.rows()).containsExactly("f", "pg32"));
    }

    @Test
    void shouldHoldMachineCpuPerActionToTwiceTheSkeletons() {
        BenchRow f = new BenchRow("broker", "f", "f", 10, 10, 100, null, "e", Map.of("cpu_us.machine", "3000",
                "cpu_us.own", "2500"));
        BenchRow sk = new BenchRow("broker", "sk", "sk", 10, 10, 400, null, null, Map.of("cpu_us.machine", "1600",
                "cpu_us.own", "1200"));
        BenchRow fat = new BenchRow("broker", "f", "f", 10, 10, 100, null, "e", Map.of("cpu_us.machine", "3300"));
        assertThat(status(List.of(f, sk), "cpu_vs_skeleton")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(fat, sk), "cpu_vs_skeleton")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(row("f", 100), sk), "cpu_vs_skeleton")).isEqualTo(Goals.Status.NOT_MEASURED);
    }

    @Test
    void shouldHoldMachineCpuPerActionOfTwoGatesWithinATenthOfOnes() {
        BenchRow g1 = new BenchRow("scale", "g1", "g1", 10, 10, 600, null, null, Map.of("cpu_us.machine", "2000"));
        BenchRow g2 = new BenchRow("scale", "g2", "g2", 10, 10, 400, null, "g1", Map.of("cpu_us.machine", "2200"));
        BenchRow costly = new BenchRow("scale", "g2", "g2", 10, 10, 400, null, "g1", Map.of("cpu_us.machine",
                "2201"));
        assertThat(status(List.of(g1, g2), "cpu_two_gates")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(g1, costly), "cpu_two_gates")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(g1, row("g2", 400)), "cpu_two_gates")).isEqualTo(Goals.Status.NOT_MEASURED);
    }

    @Test
    void shouldJudgeClosedLoopRowsAgainstTheBestPeerAtTheBoundaries() {
        Map<String, String> cheap = Map.of("cpu_us.machine", "3900");
        BenchRow atBounds = new BenchRow("closed-loop", "k16", "k16", 100, 100, 709.4,
                new BenchRow.Latency(33, 40, 50, 60), null, cheap);
        assertThat(status(List.of(atBounds), "closed_k16_throughput")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(atBounds), "closed_k16_p50")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(atBounds), "closed_k16_cpu")).isEqualTo(Goals.Status.MET);
        BenchRow fast = new BenchRow("closed-loop", "h64", "h64", 100, 100, 862.5,
                new BenchRow.Latency(109.5, 120, 130, 140), null, Map.of("cpu_us.machine", "3201"));
        assertThat(status(List.of(fast), "closed_h64_throughput")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(fast), "closed_h64_p50")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(fast), "closed_h64_cpu")).isEqualTo(Goals.Status.NOT_MET);

        BenchRow one = new BenchRow("closed-loop", "k1", "k1", 10, 10, 100, new BenchRow.Latency(10, 11, 12, 13),
                null, Map.of());
        assertThat(status(List.of(one), "one_at_a_time_kafka_p50")).isEqualTo(Goals.Status.MET);
        BenchRow idle = new BenchRow("closed-loop", "idle", "idle", 0, 0, 0, null, null, Map.of("cores.dev", "0.051"));
        assertThat(status(List.of(idle), "idle_dev")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(new BenchRow("closed-loop", "idle", "idle", 0, 0, 0, null, null,
                Map.of("cores.dev", "0.050"))), "idle_dev")).isEqualTo(Goals.Status.MET);
    }

    @Test
    void shouldReportEveryGoalNotMeasuredWithoutRows() {
        List<Goals.Result> goals = Goals.evaluate(List.of());

        assertThat(goals).extracting(Goals.Result::id).containsExactly("cpu_vs_skeleton", "postgres_baseline",
                "postgres_baseline_fsync", "approval_decisions", "light_load_p50", "p99_at_half_saturation",
                "cpu_two_gates", "gate_heap",
                "closed_k16_throughput", "closed_k16_p50", "closed_k16_cpu",
                "closed_h16_throughput", "closed_h16_p50", "closed_h16_cpu",
                "closed_k64_throughput", "closed_k64_p50", "closed_k64_cpu",
                "closed_h64_throughput", "closed_h64_p50", "closed_h64_cpu",
                "one_at_a_time_kafka_p50", "one_at_a_time_http_p50", "idle_dev");
        assertThat(goals).allSatisfy(g -> {
            assertThat(g.status()).isEqualTo(Goals.Status.NOT_MEASURED);
            assertThat(g.value()).isNull();
            assertThat(g.detail()).startsWith("no row");
        });
    }

    @Test
    void shouldCompareReadOnlyEndToEndWithThePostgresBaseline() {
        assertThat(status(List.of(row("f", 150), row("pg", 100)), "postgres_baseline")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(row("f", 149), row("pg", 100)), "postgres_baseline"))
                .isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(row("f", 0), row("pg", 100)), "postgres_baseline"))
                .isEqualTo(Goals.Status.NOT_MEASURED);
        Goals.Result r = goal(List.of(row("f", 250), row("pg", 1000)), "postgres_baseline");
        assertThat(r.value()).isEqualTo(0.25);
        assertThat(r.detail()).isEqualTo("f 250/s / pg 1000/s = 0.25 x");
    }

    @Test
    void shouldHoldLatenciesToIssue27sTargets() {
        assertThat(status(List.of(latencyRow("ol50", 900, 150)), "p99_at_half_saturation"))
                .isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(latencyRow("ol50", 10, 151)), "p99_at_half_saturation"))
                .isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(latencyRow("light", 60, 9000)), "light_load_p50")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(latencyRow("light", 61, 70)), "light_load_p50")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(row("light", 10)), "light_load_p50")).isEqualTo(Goals.Status.NOT_MEASURED);
        assertThat(goal(List.of(latencyRow("light", 39, 68)), "light_load_p50").target()).isEqualTo("<= 60 ms");
        assertThat(goal(List.of(latencyRow("ol50", 119, 254)), "p99_at_half_saturation").target())
                .isEqualTo("<= 150 ms");
    }

    @Test
    void shouldCountApprovalDecisionsPerSecondOfOneStreamThreadFromRowDv() {
        assertThat(status(List.of(row("dv", 5000)), "approval_decisions")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(row("dv", 4999)), "approval_decisions")).isEqualTo(Goals.Status.NOT_MET);
        // dv is the stream thread's figure: it wins over the test driver's, whichever is higher
        Goals.Result r = goal(List.of(row("c2", 9000), row("dv", 3000)), "approval_decisions");
        assertThat(r.status()).isEqualTo(Goals.Status.NOT_MET);
        assertThat(r.value()).isEqualTo(3000.0);
        assertThat(r.rows()).containsExactly("dv");
        assertThat(r.detail()).isEqualTo("dv 3000 decisions/s applied by one stream thread");
        assertThat(status(List.of(row("c2", 9000), row("dv", 0)), "approval_decisions"))
                .isEqualTo(Goals.Status.NOT_MEASURED);
    }

    @Test
    void shouldFallBackToRowC2AndSayItIsTheTestDriversFigure() {
        assertThat(status(List.of(row("c2", 5000)), "approval_decisions")).isEqualTo(Goals.Status.MET);
        Goals.Result r = goal(List.of(row("c2", 1539)), "approval_decisions");
        assertThat(r.status()).isEqualTo(Goals.Status.NOT_MET);
        assertThat(r.rows()).containsExactly("c2");
        assertThat(r.detail()).contains("c2 1539 decisions/s", "TopologyTestDriver", "row dv did not run");
    }

    private static Goals.Result goal(List<BenchRow> rows, String goal) {
        return Goals.evaluate(rows).stream().filter(g -> g.id().equals(goal)).findFirst().orElseThrow();
    }

    @Test
    void shouldReadTheGateHeapAtOneMillionActionsOnly() {
        assertThat(status(List.of(memoryRow(1_000_000, "480.5")), "gate_heap")).isEqualTo(Goals.Status.MET);
        assertThat(status(List.of(memoryRow(1_000_000, "513")), "gate_heap")).isEqualTo(Goals.Status.NOT_MET);
        assertThat(status(List.of(memoryRow(10_000, "40")), "gate_heap")).isEqualTo(Goals.Status.NOT_MEASURED);
        assertThat(status(List.of(memoryRow(1_000_000, "n/a")), "gate_heap")).isEqualTo(Goals.Status.NOT_MEASURED);
    }
}
