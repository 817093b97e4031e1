package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
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
        Consumer<byte[], byte[]> consumer = new GateClientSupplier(GroupCommits.OFF).getGlobalConsumer(config);
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
}
