package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.HangingTransactions;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * The watch against a real broker: it finds the gate's partitions, asks them and their producers' coordinator, and
 * calls nothing hanging that the coordinator still ends (an open transaction) or has ended (a committed one), even
 * with no minimum age. (A transaction left open by a coordinator that skipped its markers, what it exists for, cannot
 * be made on purpose with a sound broker; HangingTransactionsTest covers that decision.)
 */
class HangingTransactionWatchIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @Test
    void shouldFindNoHangingTransactionWhereTheCoordinatorStillEndsOrHasEndedThem(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        String applicationId = TestNames.applicationId(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 1, (short) 1));
        TopicPartition attempts = new TopicPartition(Topics.ATTEMPTS.name(prefix), 0);
        TopicPartition receipts = new TopicPartition(Topics.RECEIPTS.name(prefix), 0);

        try (KafkaProducer<byte[], byte[]> done = producer(applicationId + "-done");
             KafkaProducer<byte[], byte[]> open = producer(applicationId + "-open")) {
            done.initTransactions();
            done.beginTransaction();
            done.send(new ProducerRecord<>(attempts.topic(), new byte[] {1}, new byte[] {1})).get();
            done.commitTransaction();
            open.initTransactions();
            open.beginTransaction();
            open.send(new ProducerRecord<>(receipts.topic(), new byte[] {2}, new byte[] {2})).get();

            DescribeProducersResult.PartitionProducerState state = KAFKA.admin()
                    .describeProducers(List.of(receipts)).partitionResult(receipts).get();
            assertThat(state.activeProducers()).as("the open transaction is visible on its partition")
                    .anySatisfy(p -> assertThat(p.currentTransactionStartOffset()).isPresent());

            List<TopicPartition> partitions = HangingTransactionWatch.gatePartitions(KAFKA.admin(), prefix,
                    applicationId);
            HangingTransactionWatch watch = new HangingTransactionWatch(() -> partitions,
                    found -> HangingTransactions.find(KAFKA.admin(), found, Duration.ZERO,
                            System.currentTimeMillis(), Duration.ofSeconds(30)), () -> { });

            assertThat(partitions).contains(attempts, receipts).hasSize(Topics.ALL.size());
            assertThat(watch.look()).isEmpty();
            assertThat(watch.current()).isZero();
            open.abortTransaction();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String transactionalId) {
        return KafkaClients.of(KAFKA.clientProperties()).producer("hanging-it").transactional(transactionalId)
                .create(new ByteArraySerializer(), new ByteArraySerializer());
    }
}
