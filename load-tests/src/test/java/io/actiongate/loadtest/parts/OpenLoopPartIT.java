package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.Invariant;

/**
 * Parts "open-loop" and "approval" with tiny sizes on the embedded broker: every action completes with one provider
 * request, the schedule is kept, every decision is applied once (row dv: on one stream thread, replays refused), and
 * the percentiles are there. Never speed.
 */
@Tag("system")
class OpenLoopPartIT {

    /**
     * At least 50 actions and 1.5 s per row, 10 one at a time after 3 of warm-up. The 1.5 s: the rows' invariant
     * holds the sender to 10 % of its rate, and a row of 0.5 s (50 actions at 100/s) failed it on one stall of the
     * sender's thread of about 60 ms in a cold JVM; over 1.5 s such a stall is 4 %.
     */
    private static final OpenLoopPart.Sizes TINY = new OpenLoopPart.Sizes(1.5, 50, 30, 20, 10, 3);

    @TempDir
    Path stateDir;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Test
    void shouldHoldTheRateOfRowFsShareAndMeasureFromTheSchedule() throws Exception {
        try (BenchContext ctx = context("--open-loop", "25")) {
            // row f measured 100 actions/s earlier in this run: 25 % of it is 25 arrivals/s
            ctx.enter("broker");
            ctx.add(List.of(new BenchRow("broker", "f", "stand-in for row f", 1, 1, 100, null, "e", Map.of())));
            ctx.enter("open-loop");

            List<BenchRow> rows = new OpenLoopPart(TINY).run(ctx);

            assertThat(rows).extracting(BenchRow::id).containsExactly("ol25", "light");
            BenchRow ol = rows.get(0);
            assertThat(ol.notes()).containsEntry("target_rate_per_s", "25.0").containsEntry("saturation_from", "row f")
                    .containsEntry("latency_from", "scheduled send time").containsKey("achieved_rate_per_s")
                    .containsKeys("cpu_us.machine", "cpu_us.stream", "cpu_us.executor"); // CPU at this load
            assertThat(Double.parseDouble(ol.notes().get("cpu_us.stream"))).as("stream threads' CPU per action")
                    .isPositive();
            assertThat(ol.actions()).isEqualTo(50);
            assertCompleteWithPercentiles(rows);
            assertThat(rows.get(1).actions()).isEqualTo(10);
            assertThat(rows.get(1).notes().get("settings")).contains("executor.dispatch.threads=4").doesNotContain("gate.punctuate.interval");
            assertAllHeld(ctx, "row ol25: achieved arrival rate within 10% of the target",
                    "row ol25: one provider request per action (none lost, none doubled)",
                    "row light: every action SUCCEEDED", "open-loop: provider requests, all rows and warm-ups");
            assertThat(output()).contains("saturation: 100 actions/s from row f", "ol25 ", "light ");
        }
    }

    @Test
    void shouldMeasureSaturationWithABurstWhenRowFDidNotRun() throws Exception {
        try (BenchContext ctx = context("--open-loop", "20")) {
            ctx.enter("open-loop");

            List<BenchRow> rows = new OpenLoopPart(TINY).run(ctx);

            assertThat(rows).extracting(BenchRow::id).containsExactly("ol20", "light");
            assertThat(rows.get(0).notes().get("saturation_from")).isEqualTo(
                    "a burst of 30 on this part's node (row f did not run)");
            assertCompleteWithPercentiles(rows);
            assertAllHeld(ctx, "open-loop saturation burst: every action SUCCEEDED", "row ol20: every action SUCCEEDED");
        }
    }

    @Test
    void shouldApproveEveryActionOnceThroughTheSimulatedApprover() throws Exception {
        try (BenchContext ctx = context()) {
            ctx.enter("approval");

            List<BenchRow> rows = new ApprovalPart(new ApprovalPart.Sizes(4, 1)).run(ctx);

            assertThat(rows).extracting(BenchRow::id).containsExactly("ap", "dl", "dlh", "dv", "dvh");
            BenchRow ap = rows.get(0);
            assertThat(ap.ratioTo()).isEqualTo("f");
            assertThat(ap.actions()).isEqualTo(30);
            assertCompleteWithPercentiles(rows);
            assertThat(ap.notes()).containsKeys("decision_to_succeeded_ms", "proposal_to_waiting_approval_ms");
            assertAllHeld(ctx, "row ap: every action SUCCEEDED",
                    "row ap: one provider request per action (none lost, none doubled)",
                    "row ap: one decision per action, bound to the digest on its WAITING_APPROVAL receipt",
                    "row ap: every decision applied once (one APPROVED receipt carrying it, and the SUCCEEDED one)",
                    "row ap: provider requests, warm-up included");
            BenchRow dl = rows.get(1);
            BenchRow dlh = rows.get(2);
            assertThat(dl.actions()).isEqualTo(4);
            assertThat(dlh.actions()).isEqualTo(4);
            assertThat(dl.notes()).containsEntry("hops_per_decision", "0")
                    .containsEntry("roles", OpenLoopPart.DEV_ROLES).containsKey("proposal_to_waiting_approval_ms");
            assertThat(dl.notes().get("settings")).contains("executor.dispatch.threads=4").doesNotContain("gate.punctuate.interval");
            assertThat(dlh.notes()).containsEntry("hops_per_decision", "2");
            assertThat(ctx.invariants()).extracting(Invariant::name).contains(
                    "rows dl/dlh: every action SUCCEEDED, warm-up included",
                    "rows dl/dlh: every decision applied once (one receipt answering it, and the SUCCEEDED one "
                            + "carrying it)",
                    "rows dl/dlh: one provider request per action (none lost, none doubled)",
                    "rows dl and dlh (one at a time): one decision per action, bound to the digest on its "
                            + "WAITING_APPROVAL receipt");
            assertThat(output()).contains("dl/dlh: a decision at light load waited p50 ");
            BenchRow dv = rows.get(3);
            assertThat(dv.actions()).isEqualTo(30);
            assertThat(dv.ratioTo()).isEqualTo("c2");
            assertThat(dv.notes()).containsEntry("stream_threads", "1").containsEntry("roles", "gate")
                    .containsEntry("verifier", "Bouncy Castle rfc8032 Ed25519")
                    .containsKey("stream_thread_cpu_us_per_decision") // the gate's stream thread was found
                    .containsEntry("replays", "6 sent after the clock (3 resent as they were, 3 re-signed with a "
                            + "used decision_id), 6 refused APPROVAL_REUSED");
            assertThat(ctx.invariants()).extracting(Invariant::name).contains(
                    "dv warm-up: every decision applied exactly once (one APPROVED receipt carrying its decision "
                            + "id, one reservation per action)",
                    "row dv: every proposal WAITING_APPROVAL before the clock",
                    "row dv: every decision applied (its reservation on attempts, read_committed)",
                    "row dv: every decision applied exactly once (one APPROVED receipt carrying its decision id, "
                            + "one reservation per action)",
                    "row dv: no decision refused but the replays",
                    "row dv: every replayed decision id refused APPROVAL_REUSED, none reserved again",
                    "row dv: the gate ran one stream thread", "row dv: no provider request (role gate only)");
            assertThat(dv.notes().get("hops_per_decision")).startsWith("0.00 ");
            BenchRow dvh = rows.get(4);
            assertThat(dvh.actions()).isEqualTo(30);
            assertThat(Double.parseDouble(dvh.notes().get("hops_per_decision").split(" ")[0])).isPositive();
            assertThat(ctx.invariants()).extracting(Invariant::name).contains(
                    "row dvh: every decision applied exactly once (one APPROVED receipt carrying its decision id, "
                            + "one reservation per action)",
                    "row dvh: every replayed decision id refused APPROVAL_REUSED, none reserved again");
            assertThat(output()).contains("dv ", "verified decisions/s applied by one stream thread", "dvh: ");
        }
    }

    private BenchContext context(String... extra) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--broker-actions", "30", "--decisions", "30",
                "--partitions", "2", "--no-progress", "--state-dir", stateDir.toString()));
        args.addAll(List.of(extra));
        BenchOptions options = BenchOptions.parse(args);
        return new BenchContext(options, stateDir, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                Progress.off());
    }

    private String output() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private void assertCompleteWithPercentiles(List<BenchRow> rows) {
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.complete()).as("row %s complete\n%s", r.id(), output()).isTrue();
            assertThat(r.throughput()).as("row %s throughput", r.id()).isPositive();
            assertThat(r.latency()).as("row %s latency", r.id()).isNotNull();
            assertThat(r.latency().p50()).isPositive();
            assertThat(r.latency().p95()).isGreaterThanOrEqualTo(r.latency().p50());
            assertThat(r.latency().p99()).isGreaterThanOrEqualTo(r.latency().p95());
            assertThat(r.latency().max()).isGreaterThanOrEqualTo(r.latency().p99());
        });
    }

    private void assertAllHeld(BenchContext ctx, String... expected) {
        assertThat(ctx.invariants()).as(output()).isNotEmpty()
                .allSatisfy(inv -> assertThat(inv.held()).as("%s: %s\n%s", inv.name(), inv.detail(), output())
                        .isTrue());
        assertThat(ctx.invariants()).extracting(Invariant::name).contains(expected);
    }
}
