package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.Invariant;

/**
 * Part "scale" with a handful of actions: two gate instances in JVMs of their own share the partitions, every action
 * SUCCEEDED with exactly one provider request, and a wrong count fails the invariant. Asserts completion only, never
 * speed.
 */
@Tag("system")
class ScalePartIT {

    private static final int ACTIONS = 40;

    @TempDir
    Path stateDir;

    @Test
    void shouldCompleteEveryActionOnceWithTwoGateJvmsSharingThePartitions() throws Exception {
        // a steady window of 1 s (the part's path when --row-seconds is not 0), the CPU of both node JVMs counted
        BenchOptions.Builder b = new BenchOptions.Builder().brokerActions(ACTIONS).partitions(2).stateDir(stateDir)
                .progress(false).only("scale").rowSeconds(1);
        try (BenchContext ctx = new BenchContext(b.build(), stateDir, new PrintStream(new ByteArrayOutputStream(),
                true, StandardCharsets.UTF_8), Progress.off())) {
            ctx.enter("scale");
            ScalePart.Measured m = ScalePart.measure(ctx, "g2", 2, 2);
            ScalePart.check(ctx, m);

            assertThat(m.partitionsPerNode()).as("proposal partitions per gate JVM").containsExactly(1, 1);
            assertThat(m.side().completed()).as("SUCCEEDED receipts of every action produced")
                    .isEqualTo(m.side().actions()).isGreaterThanOrEqualTo(ACTIONS);
            assertThat(m.keysWithOneRequest()).as("keys with exactly one provider request, warm-up included")
                    .isEqualTo(m.side().actions() + m.warmup());
            assertThat(m.cpu().processesUs()).as("CPU of each gate JVM over the window").containsOnlyKeys("node1",
                    "node2").allSatisfy((node, us) -> assertThat(us).isPositive());
            // the gate JVMs' CPU split by thread group, as each node counts its own threads
            assertThat(m.cpu().processGroupsUs().get(CpuAccount.Group.STREAM)).as("node stream threads")
                    .isPositive();
            assertThat(m.cpu().processGroupsUs().get(CpuAccount.Group.EXECUTOR)).as("node executors").isPositive();
            assertThat(m.cpu().notes()).containsKeys("cpu_us.nodes.stream", "cpu_us.nodes.jvm");
            // what the two gates and executors wrote for the window's actions, counted on the broker
            assertThat(m.budget().actions()).isEqualTo(m.side().actions());
            assertThat(m.budget().recordsPerAction()).as("records per read-only action").isGreaterThan(5.5);
            assertThat(m.budget().markersPerAction()).as("transaction markers per action").isPositive();
            assertThat(m.missingKeys()).isZero();
            assertThat(m.doubledKeys()).isZero();
            assertThat(ctx.invariants()).isNotEmpty().allMatch(Invariant::held);
        }
    }

    @Test
    void shouldFailTheInvariantWhenAKeyHadTwoRequestsOrNone() {
        BrokerRuns.Side side = new BrokerRuns.Side(10, 10, 100, new long[10]);
        ScalePart.Measured doubled = new ScalePart.Measured("g2", 2, 2, List.of(1, 1), 20, side, 31, 29, 0, 1, 1.0,
                null, null);
        ScalePart.Measured missing = new ScalePart.Measured("g1", 2, 1, List.of(2), 20, side, 30, 29, 1, 0, 1.0,
                null, null);
        try (BenchContext ctx = new BenchContext(BenchOptions.defaults(), stateDir, System.out, Progress.off())) {
            ScalePart.check(ctx, doubled);
            ScalePart.check(ctx, missing);
            assertThat(ctx.invariants()).filteredOn(i -> !i.held()).hasSize(2)
                    .allMatch(i -> i.name().contains("exactly one provider request"));
        }
    }
}
