package io.actiongate.topics.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.Set;

import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * When an open transaction of a partition hangs, from the coordinator's view of its producer. The case that stopped a
 * gate's partition in the chaos run: the partition's transaction of epoch 61 stayed open while the coordinator had
 * gone on to epoch 86, CompleteCommit, with no partition.
 */
class HangingTransactionsTest {

    private static final TopicPartition CHANGELOG = new TopicPartition("chaos-gate-gate-actions-changelog", 1);
    private static final TopicPartition OTHER = new TopicPartition("chaos.receipts", 3);

    private static TransactionDescription coordinator(TransactionState state, int epoch, Set<TopicPartition> held) {
        return new TransactionDescription(1, state, 8, epoch, 10_000, OptionalLong.of(0), held);
    }

    @Test
    void shouldCallAPartitionsTransactionHangingWhenTheCoordinatorHasCompletedItsProducersTransaction() {
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 34, coordinator(TransactionState.COMPLETE_COMMIT, 86,
                Set.of()))).hasValueSatisfying(why -> assertThat(why).contains("CompleteCommit", "epoch 86"));
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 34, coordinator(TransactionState.COMPLETE_ABORT, 62,
                Set.of()))).isPresent();
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 34, coordinator(TransactionState.EMPTY, 62, Set.of())))
                .isPresent();
    }

    @Test
    void shouldCallItHangingWhenNoTransactionalIdHasTheProducerIdAnyMore() {
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 34, null))
                .hasValueSatisfying(why -> assertThat(why).contains("no transactional id"));
    }

    @Test
    void shouldCallItHangingWhenTheCoordinatorsOpenTransactionDoesNotHoldThePartition() {
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 34, coordinator(TransactionState.ONGOING, 63,
                Set.of(OTHER)))).hasValueSatisfying(why -> assertThat(why).contains("does not hold this partition"));
    }

    @Test
    void shouldLeaveAnOpenTransactionThatHoldsTheLastStableOffsetNotBack() {
        // a producer state can still name a start offset when the partition's LSO has passed it
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 36, coordinator(TransactionState.COMPLETE_COMMIT, 86,
                Set.of()))).isEmpty();
        assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 35, null)).isEmpty();
    }

    @Test
    void shouldLeaveATransactionTheCoordinatorWillStillEnd() {
        for (TransactionState open : new TransactionState[] {TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
                TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE}) {
            assertThat(HangingTransactions.reason(CHANGELOG, 61, 34, 34,
                    coordinator(open, 61, Set.of(CHANGELOG, OTHER)))).as("%s with the partition", open).isEmpty();
        }
    }
}
