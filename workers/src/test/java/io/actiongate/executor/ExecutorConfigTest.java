package io.actiongate.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ExecutorConfigTest {

    @Test
    void shouldUseTheDocumentedDefaults() {
        ExecutorConfig config = new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092"));
        assertThat(config.topicPrefix()).isEqualTo("actiongate.");
        assertThat(config.groupId()).isEqualTo("actiongate-executor");
        assertThat(config.dispatchThreads()).isEqualTo(8);
        assertThat(config.pollTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.executorId()).startsWith("executor-");
    }

    @Test
    void shouldRefuseOverridesThatWouldDisableTheFence() {
        Map<String, String> base = Map.of("bootstrap.servers", "127.0.0.1:9092",
                ExecutorConfig.CONSUMER_PREFIX + "max.poll.interval.ms", "60000");
        assertThat(Executor.consumerProperties(new ExecutorConfig(base)))
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "60000")
                .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "actiongate-executor");
        assertThat(Executor.producerProperties(new ExecutorConfig(base)))
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all");
        assertRefused(Executor::consumerProperties, base, ExecutorConfig.CONSUMER_PREFIX + "enable.auto.commit",
                "true", "enable.auto.commit");
        assertRefused(Executor::consumerProperties, base, ExecutorConfig.CONSUMER_PREFIX + "isolation.level",
                "read_uncommitted", "isolation.level");
        assertRefused(Executor::consumerProperties, base, "kafka.isolation.level", "read_uncommitted",
                "isolation.level");
        assertRefused(Executor::producerProperties, base, ExecutorConfig.PRODUCER_PREFIX + "enable.idempotence",
                "false", "enable.idempotence");
        assertRefused(Executor::producerProperties, base, "kafka.acks", "1", "acks");
    }

    private static void assertRefused(Function<ExecutorConfig, Map<String, Object>> client, Map<String, String> base,
                                      String key, String value, String named) {
        Map<String, String> flat = new HashMap<>(base);
        flat.put(key, value);
        ExecutorConfig config = new ExecutorConfig(flat);
        assertThatThrownBy(() -> client.apply(config)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("configuration " + named);
    }

    @Test
    void shouldPassCommonKafkaClientSettingsToBothClients() {
        ExecutorConfig config = new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092",
                "kafka.security.protocol", "SSL", ExecutorConfig.CONSUMER_PREFIX + "session.timeout.ms", "9000"));
        assertThat(Executor.consumerProperties(config)).containsEntry("security.protocol", "SSL")
                .containsEntry("session.timeout.ms", "9000")
                .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092");
        assertThat(Executor.producerProperties(config)).containsEntry("security.protocol", "SSL")
                .doesNotContainKey("session.timeout.ms");
        assertThat(config.unrecognizedKeys()).isEmpty();
    }

    @Test
    void shouldSendOutcomesWithoutLingerUnlessOverridden() {
        // the gate settles an action only once its outcome is on the broker: Kafka's default 5 ms would delay each
        ExecutorConfig defaults = new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092"));
        assertThat(Executor.producerProperties(defaults)).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0);
        ExecutorConfig overridden = new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092",
                ExecutorConfig.PRODUCER_PREFIX + "linger.ms", "5"));
        assertThat(Executor.producerProperties(overridden)).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "5");
    }

    @Test
    void shouldRejectAnEmptyDispatchPool() {
        assertThatThrownBy(() -> new ExecutorConfig(Map.of("bootstrap.servers", "127.0.0.1:9092",
                ExecutorConfig.DISPATCH_THREADS_CONFIG, "0"))).isInstanceOf(ConfigException.class);
    }
}
