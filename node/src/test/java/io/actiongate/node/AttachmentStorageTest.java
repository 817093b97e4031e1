package io.actiongate.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

import io.actiongate.executor.ExecutorConfig;
import io.actiongate.kafka.KafkaClients;

class AttachmentStorageTest {

    private static final ExecutorConfig EXECUTOR = new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092"));

    @Test
    void shouldLetTheCleanersFetchWaitAsLongAsAFollowersOrForAMebibyte() {
        Map<String, Object> config = AttachmentStorage.cleanerConsumer(
                KafkaClients.of(EXECUTOR.kafkaClientProperties()), EXECUTOR).config();

        // one fetch every 5 s at idle instead of every second; under load one per MiB of receipts
        assertThat(config).containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                KafkaClients.ConsumerSpec.FOLLOWER_FETCH_MAX_WAIT_MS);
        assertThat(config).containsEntry(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1 << 20);
        assertThat(config).containsEntry(ConsumerConfig.GROUP_ID_CONFIG,
                EXECUTOR.groupId() + "-attachment-cleaner");
    }

    @Test
    void shouldLetTheUserChangeTheCleanersFetchWait() {
        ExecutorConfig executor = new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092",
                "kafka.fetch.max.wait.ms", "800"));
        Map<String, Object> config = AttachmentStorage.cleanerConsumer(
                KafkaClients.of(executor.kafkaClientProperties()), executor).config();

        assertThat(config.get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG)).hasToString("800");
    }
}
