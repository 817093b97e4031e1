package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

class FaultTargetsTest {

    @Test
    void shouldNameTheGateTransactionalIdsOfTheBrokersThatAnsweredWhenOneLeftTheMetadataMeanwhile() throws Exception {
        Map<Integer, KafkaFuture<Collection<TransactionListing>>> byBroker = new LinkedHashMap<>();
        byBroker.put(1, KafkaFuture.completedFuture(List.of(
                listing("chaos-gate-7f3a-1", TransactionState.ONGOING),
                listing("chaos-txn-probe-0", TransactionState.ONGOING))));
        // what Kafka 4.4's Admin client gives a broker that left the metadata between lookup and request
        KafkaFutureImpl<Collection<TransactionListing>> gone = new KafkaFutureImpl<>();
        gone.completeExceptionally(new IllegalArgumentException(
                "Unexpected key set: [BrokerKey(brokerId=OptionalInt[3])]"));
        byBroker.put(3, gone);
        byBroker.put(2, KafkaFuture.completedFuture(List.of(
                listing("chaos-gate-01bc-1", TransactionState.COMPLETE_COMMIT))));

        assertThat(FaultTargets.gateTransactionalIds(byBroker, ChaosRun.APPLICATION_ID))
                .containsExactly("chaos-gate-01bc-1", "chaos-gate-7f3a-1");
    }

    @Test
    void shouldNameNoIdWhenNoBrokerAnswered() throws Exception {
        KafkaFutureImpl<Collection<TransactionListing>> gone = new KafkaFutureImpl<>();
        gone.completeExceptionally(new IllegalArgumentException("Unexpected key set"));

        assertThat(FaultTargets.gateTransactionalIds(Map.of(3, gone), ChaosRun.APPLICATION_ID)).isEmpty();
    }

    private static TransactionListing listing(String id, TransactionState state) {
        return new TransactionListing(id, 1000L, state);
    }
}
