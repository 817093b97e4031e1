package io.actiongate.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.actiongate.loadtest.parts.PhysicalBench;
import io.actiongate.loadtest.report.RecordCounts;

/** The budget's arithmetic and the physical part's invariant, on crafted counts (no broker). */
class RecordBudgetTest {

    private static final RecordCounts.TopicCount RECEIPTS =
            new RecordCounts.TopicCount("g.receipts", "contract", 12, 330, 300, 310, 3_000, 27_000);
    private static final RecordCounts.TopicCount CHANGELOG =
            new RecordCounts.TopicCount("g-a-changelog", "changelog", 12, 230, 200, 200, 2_000, 18_000);
    private static final RecordCounts.TopicCount INPUT =
            new RecordCounts.TopicCount("g.proposals", "input", 12, 0, 0, 0, 0, 0);

    @Test
    void shouldTellMarkersAndAbortedRecordsFromCommittedOnes() {
        assertThat(RECEIPTS.markers()).as("offsets holding no record").isEqualTo(20);
        assertThat(RECEIPTS.aborted()).isEqualTo(10);
        assertThat(RECEIPTS.bytesPerRecord()).isEqualTo(100);
        assertThat(RECEIPTS.keyBytesPerRecord()).isEqualTo(10);
        assertThat(RECEIPTS.valueBytesPerRecord()).isEqualTo(90);
    }

    @Test
    void shouldSumPerActionOverTheTopicsActiongateWrote() {
        RecordCounts.Budget budget = new RecordCounts.Budget(100, List.of(RECEIPTS, CHANGELOG, INPUT));

        assertThat(budget.written()).containsExactly(RECEIPTS, CHANGELOG);
        assertThat(budget.recordsPerAction()).isEqualTo(5.0);
        assertThat(budget.markersPerAction()).isEqualTo(0.5);
        assertThat(budget.bytesPerAction()).isEqualTo(500.0);
        assertThat(budget.perAction(RECEIPTS)).isEqualTo(3.0);
        assertThat(budget.aborted()).isEqualTo(10);
    }

    @Test
    void shouldFailThePhysicalInvariantWhenARecordIsMissingOrASendFailed() {
        RecordCounts.Budget budget = new RecordCounts.Budget(100, List.of(RECEIPTS));
        PhysicalBench.Result held = new PhysicalBench.Result(10, 30, 1.0, 10, 40, 40, 0, null, budget, List.of("t"));
        PhysicalBench.Result missing = new PhysicalBench.Result(10, 30, 1.0, 10, 40, 39, 0, null, budget,
                List.of("t"));
        PhysicalBench.Result failed = new PhysicalBench.Result(10, 30, 1.0, 10, 40, 40, 1, "timeout", budget,
                List.of("t"));

        assertThat(held.allCommitted()).isTrue();
        assertThat(missing.allCommitted()).isFalse();
        assertThat(failed.allCommitted()).isFalse();
        assertThat(held.recordsPerSecond()).isEqualTo(30.0);
        assertThat(held.actionsPerSecond()).as("records/s over records per action").isEqualTo(10.0);
    }

    @Test
    void shouldRefuseABudgetWithoutRecords() {
        assertThatThrownBy(() -> new PhysicalBench(new RecordCounts.Budget(10, List.of(INPUT)), 1,
                java.time.Duration.ZERO, java.time.Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldKeyEachSimulatedActionWithItsOwnKeyOfTheCountedSize() {
        assertThat(new String(PhysicalBench.key(42, 6), StandardCharsets.US_ASCII)).isEqualTo("000042");
        assertThat(PhysicalBench.key(1_234_567, 3)).hasSize(3);
        assertThat(PhysicalBench.key(1, 40)).hasSize(40);
        assertThat(PhysicalBench.suffix("bench-gate-ab12cd34.receipts")).isEqualTo("receipts");
        assertThat(PhysicalBench.suffix("bench-gate-ab12cd34-gate-actions-changelog"))
                .isEqualTo("gate-actions-changelog");
        assertThat(BrokerRuns.topicKind("bench-gate-x", "bench-gate-x.proposals")).isEqualTo("input");
        assertThat(BrokerRuns.topicKind("bench-gate-x", "bench-gate-x.receipts")).isEqualTo("contract");
        assertThat(BrokerRuns.topicKind("bench-gate-x", "bench-gate-x-store-changelog")).isEqualTo("changelog");
        assertThat(BrokerRuns.topicKind("bench-gate-x", "bench-gate-x-KSTREAM-X-repartition"))
                .isEqualTo("repartition");
    }
}
