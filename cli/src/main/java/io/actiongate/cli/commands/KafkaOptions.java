package io.actiongate.cli.commands;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

import picocli.CommandLine.Option;

import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/** The options every Kafka-talking command shares (a picocli mixin). */
public final class KafkaOptions {

    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";

    @Option(names = "--bootstrap-servers", defaultValue = DEFAULT_BOOTSTRAP_SERVERS, paramLabel = "HOST:PORT[,...]",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrapServers = DEFAULT_BOOTSTRAP_SERVERS;

    @Option(names = "--prefix", defaultValue = Topics.DEFAULT_PREFIX, paramLabel = "PREFIX",
            description = "Topic name prefix (default: ${DEFAULT-VALUE}).")
    String prefix = Topics.DEFAULT_PREFIX;

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String topic(TopicSpec<?, ?> spec) {
        return spec.name(prefix);
    }

    /** A short-lived CLI producer: idempotent, acks=all, and fails within seconds when Kafka is unreachable. */
    Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, "actiongate-cli");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return config;
    }

    /** A reader of committed data only, without a group (the CLI assigns partitions itself). */
    Map<String, Object> consumerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, "actiongate-cli");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }
}
