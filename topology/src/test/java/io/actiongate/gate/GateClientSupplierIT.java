package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.gate.internal.GroupCommits;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;

class GateClientSupplierIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @Test
    void shouldCloseTheGlobalConsumerWithoutWaitingForItsHeldFetch(TestInfo test) throws Exception {
        String topic = TestNames.topicPrefix(test) + "policy";
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        Map<String, Object> config = KAFKA.clientProperties();
        // longer than the follower's wait, so that a close waiting for the held fetch cannot be mistaken for one
        // that did not
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20_000);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Consumer<byte[], byte[]> consumer = new GateClientSupplier(GroupCommits.OFF, Duration.ZERO)
                .getGlobalConsumer(config);
        TopicPartition partition = new TopicPartition(topic, 0);
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        // the empty topic's fetch is sent and held at the broker
        assertThat(consumer.poll(Duration.ofMillis(500))).isEmpty();
        assertThat(consumer.poll(Duration.ofMillis(200))).isEmpty();

        long start = System.nanoTime();
        consumer.close(); // what Kafka Streams calls
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void shouldLetTheGlobalConsumerWaitTheIdlePollWhileNothingComesAndReturnAsARecordArrives(TestInfo test)
            throws Exception {
        String topic = TestNames.topicPrefix(test) + "policy";
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        Map<String, Object> config = KAFKA.clientProperties();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Duration idlePoll = Duration.ofSeconds(4);
        try (Consumer<byte[], byte[]> consumer = new GateClientSupplier(GroupCommits.OFF, idlePoll)
                .getGlobalConsumer(config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KAFKA.clientProperties(),
                     new ByteArraySerializer(), new ByteArraySerializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long start = System.nanoTime();
            assertThat(consumer.poll(Duration.ofMillis(100))).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a poll before a second of nothing")
                    .isLessThan(idlePoll);
            Thread.sleep(1_100);

            start = System.nanoTime();
            assertThat(consumer.poll(Duration.ofMillis(100))).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("an idle poll that nothing ends")
                    .isGreaterThanOrEqualTo(idlePoll.minusMillis(100));

            // the next idle poll ends with the record that arrives during it
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(500);
                    producer.send(new ProducerRecord<>(topic, new byte[] {1}, new byte[] {1})).get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            start = System.nanoTime();
            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            sent.get();
            assertThat(records).hasSize(1);
            assertThat(took).as("an idle poll a record ended").isLessThan(idlePoll.minusMillis(1_000));
            start = System.nanoTime();
            consumer.poll(Duration.ofMillis(100));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the poll right after a record")
                    .isLessThan(idlePoll);
        }
    }
}
