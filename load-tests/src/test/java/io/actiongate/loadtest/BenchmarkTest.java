package io.actiongate.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchReport;
import io.actiongate.loadtest.report.BenchRow;

/**
 * The benchmark's correctness, never its speed: with a few actions, every row of part topology must bring every
 * action to the state it claims to measure, or its figures would describe some other work (a rejection path is
 * much cheaper than a reservation).
 */
class BenchmarkTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldPrintMachineParametersAndEveryRowWhenSkippingTheBroker() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        // no fork (quick): TopologyForksIT runs the rows in forked JVMs as the bench jar does
        BenchOptions options = new BenchOptions.Builder().actions(50).rounds(1).brokerActions(10).partitions(1)
                .skipBroker(true).stateDir(stateDir).resultsDir(stateDir.resolve("bench-results")).progress(false)
                .forks(0).build();

        boolean ok = Benchmark.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(out).isTrue();
        assertThat(out).contains("machine: ", "cores", "parameters: actions=50 rounds=1 (+1 warm-up) forks=0", "skip-broker",
                "Part topology:", "invariants: all 6 held", "goals:", "report: ")
                .doesNotContain("Part broker:");
        assertThat(out.lines().filter(l -> l.matches("^(a|b|c|c1|c2|d) +.*")))
                .hasSize(6).allMatch(l -> l.endsWith(" 50/50"));
    }

    @Test
    void shouldReturnFalseAndWriteAFailedReportWhenAnInvariantFails() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BenchOptions options = new BenchOptions(50, 1, 10, 1, true, stateDir);
        BenchPart wrong = new BenchPart() {
            @Override
            public String name() {
                return "topology";
            }

            @Override
            public String title() {
                return "a part whose output is wrong";
            }

            @Override
            public List<BenchRow> run(BenchContext ctx) {
                ctx.invariant("every action once", false, "49/50");
                return List.of(new BenchRow(name(), "a", "wrong", 50, 49, 1000, null, null, java.util.Map.of()));
            }
        };

        boolean ok = Benchmark.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8), Progress.off(),
                List.of(wrong));

        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(out).isFalse();
        assertThat(out).contains("INVARIANT FAILED [topology] every action once: 49/50", "invariants: FAILED");
        Path results = stateDir.resolve("bench-results");
        assertThat(java.nio.file.Files.readString(results.resolve(BenchReport.MARKDOWN))).contains("**FAILED**",
                "| topology | every action once | **NO** | 49/50 |");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(results.resolve(BenchReport.JSON)
                .toFile()).get("ok").asBoolean()).isFalse();
    }
}
