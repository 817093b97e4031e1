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

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.Invariant;

/**
 * Part "closed-loop" short: actiongate dev in a JVM of its own, one and three hosts over Kafka and over HTTP for two
 * seconds each, and the idle row. Every call answered SUCCEEDED, one provider request per call, the broker's
 * requests and dev's CPU counted per action. Never speed.
 */
@Tag("system")
class ClosedLoopPartIT {

    @TempDir
    Path stateDir;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Test
    void shouldAnswerEveryWaitingHostOnceOverKafkaAndHttpAndMeasureIdle() throws Exception {
        BenchOptions options = BenchOptions.parse(List.of("--closed-loop", "1,3", "--closed-loop-seconds", "2",
                "--closed-loop-jit-seconds", "12", "--no-progress", "--state-dir", stateDir.toString()));
        try (BenchContext ctx = new BenchContext(options, stateDir,
                new PrintStream(bytes, true, StandardCharsets.UTF_8), Progress.off())) {
            ctx.enter("closed-loop");

            List<BenchRow> rows = new ClosedLoopPart().run(ctx);

            String output = bytes.toString(StandardCharsets.UTF_8);
            assertThat(rows).as(output).extracting(BenchRow::id).containsExactly("k1", "k3", "h1", "h3", "idle");
            assertThat(rows.subList(0, 4)).allSatisfy(r -> {
                assertThat(r.actions()).as("row %s answered calls\n%s", r.id(), output).isPositive();
                assertThat(r.throughput()).isPositive();
                assertThat(r.latency().p50()).isPositive();
                assertThat(r.latency().p99()).isGreaterThanOrEqualTo(r.latency().p50());
                assertThat(r.notes()).containsKey("hosts").containsKey("transport");
                assertThat(r.notes().keySet()).anyMatch(k -> k.endsWith("_per_action"));
            });
            assertThat(rows.get(0).notes()).containsEntry("transport", "Kafka").containsEntry("hosts", "1");
            assertThat(rows.get(3).notes()).containsEntry("transport", "HTTP").containsEntry("hosts", "3");
            assertThat(Double.parseDouble(rows.get(4).notes().get("cores.dev"))).as("idle dev's cores\n%s", output)
                    .isPositive().isLessThan(1.0);
            assertThat(ctx.invariants()).as(output).isNotEmpty().allSatisfy(inv -> assertThat(inv.held())
                    .as("%s: %s\n%s", inv.name(), inv.detail(), output).isTrue());
            assertThat(ctx.invariants()).extracting(Invariant::name).contains(
                    "row k1: every call SUCCEEDED", "row h3: every call SUCCEEDED", "one provider request per call",
                    "JIT warm-up kjit: every call SUCCEEDED", "JIT warm-up hjit: every call SUCCEEDED");
            assertThat(output).contains("idle dev uses ", "broker requests and answers per action: ");
            // each JIT round runs a row's length (3 s) at least and 12 s at most, and says how busy the compilers were
            assertThat(output).containsPattern("kjit +3 waiting hosts warmed dev's JIT for ([3-9]|1[0-2]) s "
                    + "\\(untimed\\); its compilers used (\\d\\.\\d{3}|an unknown share) of a core")
                    .containsPattern("hjit +3 waiting hosts warmed dev's JIT for ([3-9]|1[0-2]) s");
        }
    }
}
