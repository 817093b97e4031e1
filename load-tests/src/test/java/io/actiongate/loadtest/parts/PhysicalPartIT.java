package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.loadtest.Benchmark;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchReport;
import io.actiongate.loadtest.report.Goals;

/**
 * Parts "broker" and "physical" with a handful of actions on the embedded broker, through {@link Benchmark#run}:
 * the records actiongate wrote per action are counted (some on every contract topic row f must write, none
 * aborted), the transactional producer reproduces them with every record committed, and the report files carry
 * row p and the budget. Asserts counts and invariants, never speed.
 */
@Tag("system")
class PhysicalPartIT {

    private static final int ACTIONS = 20;

    @TempDir
    Path stateDir;

    @Test
    void shouldCountTheBudgetOfRowFAndCommitEveryRecordOfItsReproduction() throws Exception {
        Path results = stateDir.resolve("results");
        BenchOptions options = new BenchOptions.Builder().only("broker", "physical").brokerActions(ACTIONS).rowSeconds(0)
                .partitions(2).stateDir(stateDir).resultsDir(results).progress(false).build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        boolean ok = Benchmark.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8), Progress.off(),
                List.of(new BrokerPart(), new PhysicalPart(Duration.ofMillis(300), Duration.ZERO)));

        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(out).isTrue();
        assertThat(out).contains("Part physical:", "records actiongate wrote per action of row f",
                "every record read back with read_committed");
        JsonNode root = new ObjectMapper().readTree(results.resolve(BenchReport.JSON).toFile());
        JsonNode budget = root.get("budget");
        assertThat(budget.get("actions").asInt()).isEqualTo(ACTIONS);
        assertThat(budget.get("records_per_action").asDouble()).as(out).isGreaterThan(0);
        assertThat(budget.get("markers_per_action").asDouble()).as("transaction markers counted").isGreaterThan(0);
        List<String> written = new ArrayList<>();
        for (JsonNode t : budget.get("topics")) {
            assertThat(t.get("aborted").asLong()).as("aborted records on %s", t.get("topic")).isZero();
            if (t.get("records").asLong() > 0) {
                written.add(t.get("topic").asText());
                assertThat(t.get("bytes_per_record").asDouble()).as("%s", t.get("topic")).isPositive();
            }
        }
        // a read-only action's receipts (APPROVED, DISPATCHING, SUCCEEDED), its reservation and its outcome
        assertThat(written).as(out).anyMatch(t -> t.endsWith(".receipts")).anyMatch(t -> t.endsWith(".attempts"))
                .anyMatch(t -> t.endsWith(".outcomes")).anyMatch(t -> t.endsWith("-changelog"));
        JsonNode receipts = null;
        for (JsonNode t : budget.get("topics")) {
            if (t.get("topic").asText().endsWith(".receipts")) {
                receipts = t;
            }
        }
        assertThat(receipts.get("records_per_action").asDouble()).as("receipts per action").isGreaterThanOrEqualTo(1);
        JsonNode p = null;
        for (JsonNode r : root.get("rows")) {
            if (r.get("id").asText().equals("p")) {
                p = r;
            }
        }
        assertThat(p).as("row p in the report").isNotNull();
        assertThat(p.get("completed").asInt()).isEqualTo(p.get("actions").asInt()).isGreaterThanOrEqualTo(ACTIONS);
        assertThat(p.get("throughput_per_s").asDouble()).isPositive();
        assertThat(root.get("invariants")).anySatisfy(i -> {
            assertThat(i.get("name").asText()).contains("every produced record committed");
            assertThat(i.get("held").asBoolean()).isTrue();
        });
        // every goal line is in the report; row p stands in none (it is no reachable limit), and the
        // CPU goal needs steady windows, which --row-seconds 0 does not run
        List<String> goals = new ArrayList<>();
        root.get("goals").forEach(g -> goals.add(g.get("id").asText()));
        assertThat(goals).containsExactlyElementsOf(Goals.evaluate(List.of()).stream().map(Goals.Result::id)
                .toList());
        assertThat(root.get("goals")).allSatisfy(g -> assertThat(g.get("rows").toString()).doesNotContain("\"p\""));
        JsonNode cpu = root.get("goals").get(0);
        assertThat(cpu.get("id").asText()).isEqualTo("cpu_vs_skeleton");
        assertThat(cpu.get("status").asText()).isEqualTo("not measured");
        assertThat(cpu.get("detail").asText()).isEqualTo("no row f with a CPU figure");
    }
}
