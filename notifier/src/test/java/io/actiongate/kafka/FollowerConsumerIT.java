package io.actiongate.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;

/**
 * {@link KafkaClients.ConsumerSpec#follower()} on a real broker: with nothing to read, a follower's fetch is held at
 * the broker (a few fetches where a default consumer makes two a second), and a record committed by a transaction
 * still reaches it at once, not when the held fetch runs out.
 */
class FollowerConsumerIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final Duration IDLE = Duration.ofSeconds(3);

    @Test
    void shouldHoldAnIdleFollowersFetchAndStillHandItACommittedRecordAtOnce(TestInfo test) throws Exception {
        String topic = TestNames.topicPrefix(test) + "followed";
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        TopicPartition partition = new TopicPartition(topic, 0);
        KafkaClients clients = KafkaClients.of(KAFKA.bootstrapServers(), Map.of());
        KafkaConsumer<String, byte[]> follower = clients.consumer("it-follower").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer());
        try (KafkaConsumer<String, byte[]> plain = clients.consumer("it-plain")
                     .create(new StringDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<String, byte[]> untransacted = clients.producer("it-follower-first")
                     .create(new StringSerializer(), new ByteArraySerializer());
             KafkaProducer<String, byte[]> producer = clients.producer("it-follower-writer")
                     .transactional("it-follower-writer-" + System.nanoTime())
                     .create(new StringSerializer(), new ByteArraySerializer())) {
            for (KafkaConsumer<String, byte[]> c : List.of(follower, plain)) {
                c.assign(List.of(partition));
                c.seekToBeginning(List.of(partition));
            }
            producer.initTransactions();

            // a first record, outside a transaction (so no marker follows it): the fetch that hands it over has just
            // been answered, and the next one, sent at once, the broker may hold for the whole follower wait
            untransacted.send(new ProducerRecord<>(topic, "k0", new byte[] {0})).get();
            assertThat(read(follower, 1)).extracting(ConsumerRecord::key).containsExactly("k0");
            assertThat(follower.poll(Duration.ZERO)).isEmpty();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", new byte[] {1}));
            producer.commitTransaction();
            long sent = System.nanoTime();
            List<ConsumerRecord<String, byte[]>> committed = read(follower, 1);
            long tookMs = (System.nanoTime() - sent) / 1_000_000;
            assertThat(committed).extracting(ConsumerRecord::key).containsExactly("k");
            assertThat(tookMs).as("ms until the committed record reached the follower (its fetch may wait %d ms)",
                    KafkaClients.ConsumerSpec.FOLLOWER_FETCH_MAX_WAIT_MS).isLessThan(2_500);

            // then nothing new: the fetches each consumer makes while both are idle
            assertThat(read(plain, 2)).hasSize(2);
            double followerBefore = fetches(follower);
            double plainBefore = fetches(plain);
            long until = System.nanoTime() + IDLE.toNanos();
            while (System.nanoTime() < until) {
                assertThat(follower.poll(Duration.ofMillis(50))).isEmpty();
                assertThat(plain.poll(Duration.ofMillis(50))).isEmpty();
            }
            double followerFetches = fetches(follower) - followerBefore;
            double plainFetches = fetches(plain) - plainBefore;
            assertThat(plainFetches).as("a default consumer's empty fetches in %s", IDLE).isGreaterThanOrEqualTo(4);
            assertThat(followerFetches).as("the follower's empty fetches in %s", IDLE).isLessThanOrEqualTo(2);
        } finally {
            // as the roles close a follower: Kafka's default close waits for the fetch the broker holds
            follower.close(KafkaClients.ConsumerSpec.FOLLOWER_CLOSE);
        }
    }

    /** The next {@code count} records {@code consumer} reads, polling for at most 10 s (fewer if none came). */
    private static List<ConsumerRecord<String, byte[]>> read(KafkaConsumer<String, byte[]> consumer, int count) {
        List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (read.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(20)).forEach(read::add);
        }
        return read;
    }

    private static double fetches(KafkaConsumer<?, ?> consumer) {
        for (Map.Entry<MetricName, ? extends Metric> m : consumer.metrics().entrySet()) {
            if (m.getKey().name().equals("fetch-total") && m.getKey().group().equals("consumer-fetch-manager-metrics")
                    && !m.getKey().tags().containsKey("topic")) {
                return ((Number) m.getValue().metricValue()).doubleValue();
            }
        }
        throw new IllegalStateException("no fetch-total metric");
    }
}
