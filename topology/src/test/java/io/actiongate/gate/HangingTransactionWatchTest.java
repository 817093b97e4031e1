package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.actiongate.topics.admin.HangingTransactions;

/** What the gate's hanging-transaction watch looks at, what it logs and what it counts. */
class HangingTransactionWatchTest {

    private static final TopicPartition CHANGELOG = new TopicPartition("chaos-gate-gate-actions-changelog", 1);
    private static final TopicPartition CLAIMS = new TopicPartition("chaos-gate-decisions-claimed-repartition", 2);

    private static HangingTransactions.Hanging hanging(TopicPartition partition, String reason) {
        return new HangingTransactions.Hanging(partition, 7, 54, 0, 34, 1_796_215_628_670L, reason);
    }

    @Test
    void shouldWatchTheContractsTopicsUnderThePrefixAndTheGatesInternalTopics() {
        Set<String> names = Set.of("chaos.proposals", "chaos.attempts", "chaos.receipts", "chaos.chaos-probe",
                "chaos-gate-gate-actions-changelog", "chaos-gate-proposals-rerouted-repartition", "other.proposals",
                "chaos-gateway-unrelated", "__consumer_offsets");

        assertThat(HangingTransactionWatch.gateTopics(names, "chaos.", "chaos-gate")).containsExactly(
                "chaos-gate-gate-actions-changelog", "chaos-gate-proposals-rerouted-repartition", "chaos.attempts",
                "chaos.proposals", "chaos.receipts");
    }

    @Test
    void shouldLogEachHangingTransactionOnceAndCountWhatTheLastLookFound() {
        List<List<HangingTransactions.Hanging>> looks = new ArrayList<>(List.of(
                List.of(hanging(CHANGELOG, "the coordinator's transaction is CompleteCommit (epoch 474)")),
                // the coordinator's epoch moved on, so the reason reads differently: still the same transaction
                List.of(hanging(CHANGELOG, "the coordinator's transaction is CompleteCommit (epoch 475)"),
                        hanging(CLAIMS, "the coordinator's transaction is CompleteCommit (epoch 475)")),
                List.of(),
                List.of(hanging(CHANGELOG, "the coordinator's transaction is CompleteCommit (epoch 476)"))));
        HangingTransactionWatch watch = new HangingTransactionWatch(() -> List.of(CHANGELOG, CLAIMS),
                partitions -> looks.remove(0), () -> { });

        assertThat(watch.look()).extracting(HangingTransactions.Hanging::partition).containsExactly(CHANGELOG);
        assertThat(watch.current()).isEqualTo(1);
        assertThat(watch.look()).extracting(HangingTransactions.Hanging::partition).containsExactly(CLAIMS);
        assertThat(watch.current()).isEqualTo(2);
        assertThat(watch.look()).isEmpty();
        assertThat(watch.current()).isZero();
        // gone and back (an operator's marker, then the same open transaction seen again): logged again
        assertThat(watch.look()).extracting(HangingTransactions.Hanging::partition).containsExactly(CHANGELOG);
    }

    @Test
    void shouldKeepTheLastCountWhenALookFails() {
        List<Boolean> fail = new ArrayList<>(List.of(false, true));
        HangingTransactionWatch watch = new HangingTransactionWatch(() -> List.of(CHANGELOG), partitions -> {
            if (fail.remove(0)) {
                throw new org.apache.kafka.common.errors.TimeoutException("no leader");
            }
            return List.of(hanging(CHANGELOG, "no transactional id at the coordinator has this producer id"));
        }, () -> { });

        watch.look();
        assertThat(watch.look()).isEmpty();
        assertThat(watch.current()).isEqualTo(1);
    }
}
