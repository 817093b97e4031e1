package io.actiongate.cli.commands;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

import picocli.CommandLine.Option;

import io.actiongate.cli.ConfigOptions;
import io.actiongate.config.CommonConfig;
import io.actiongate.kafka.KafkaClientSettings;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * The options every Kafka-talking command shares (a picocli mixin), resolved the way every role resolves them.
 * Precedence, lowest first: defaults; {@code --config FILE} (actiongate's configuration: {@code bootstrap.servers},
 * {@code topic.prefix}, {@code kafka.*}); {@code ACTIONGATE_*} environment variables
 * ({@code ACTIONGATE_KAFKA_SECURITY_PROTOCOL} is {@code kafka.security.protocol}); {@code --kafka-config FILE}
 * (plain Kafka client properties, like Kafka's own {@code --command-config}); then {@code --bootstrap-servers} and
 * {@code --prefix}.
 */
public final class KafkaOptions {

    public static final String DEFAULT_BOOTSTRAP_SERVERS = KafkaClientSettings.DEFAULT_BOOTSTRAP_SERVERS;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
            description = "Kafka bootstrap servers (config key bootstrap.servers, default " + DEFAULT_BOOTSTRAP_SERVERS
                    + ").")
    String bootstrapServers;

    @Option(names = "--prefix", paramLabel = "PREFIX",
            description = "Topic name prefix (config key topic.prefix, default " + Topics.DEFAULT_PREFIX + ").")
    String prefix;

    @Option(names = "--config", paramLabel = "FILE",
            description = "actiongate configuration file (.properties/.yaml): its bootstrap.servers, topic.prefix "
                    + "and kafka.* client settings apply. ACTIONGATE_* environment variables override it.")
    Path configFile;

    @Option(names = "--kafka-config", paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.*, ssl.*, ...), as for Kafka's own "
                    + "--command-config; they win over kafka.* of --config and the environment.")
    Path kafkaConfigFile;

    private Resolved resolved;

    /** The effective settings, resolved once from the options and the process environment. */
    private Resolved resolved() {
        if (resolved == null) {
            resolved = resolve(System.getenv());
        }
        return resolved;
    }

    /** The effective settings with {@code environment} as the process environment (tests pass their own). */
    Resolved resolve(Map<String, String> environment) {
        Map<String, String> flat = new TreeMap<>(ConfigOptions.merge(configFile, kafkaConfigFile, environment));
        if (bootstrapServers != null) {
            flat.put(CommonConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        }
        if (prefix != null) {
            flat.put(CommonConfig.TOPIC_PREFIX_CONFIG, prefix);
        }
        String topicPrefix = flat.getOrDefault(CommonConfig.TOPIC_PREFIX_CONFIG, Topics.DEFAULT_PREFIX);
        return new Resolved(KafkaClientSettings.from(flat), topicPrefix, flat);
    }

    /** Client settings ({@code bootstrap.servers} and every client key), the topic prefix, the whole configuration. */
    record Resolved(Map<String, Object> client, String topicPrefix, Map<String, String> flat) {
        Resolved {
            client = Map.copyOf(client);
            flat = Map.copyOf(flat);
        }
    }

    /** The whole flat configuration the options resolve to (for names a role derives: application.id, groups). */
    public Map<String, String> flatConfig() {
        return resolved().flat();
    }

    public String bootstrapServers() {
        return String.valueOf(resolved().client().get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG));
    }

    /** The resolved topic prefix ({@code --prefix}, else {@code topic.prefix}, else the default). */
    public String topicPrefix() {
        return resolved().topicPrefix();
    }

    public String topic(TopicSpec<?, ?> spec) {
        return spec.name(resolved().topicPrefix());
    }

    /** The client settings shared by every client of the command, for a library that builds its own. */
    public Map<String, Object> clientSettings() {
        return resolved().client();
    }

    /** A short-lived CLI producer: idempotent, acks=all, and fails within seconds when Kafka is unreachable. */
    KafkaClients.ProducerSpec producer() {
        return clients().producer("actiongate-cli")
                .defaultTo(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000)
                .defaultTo(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)
                .defaultTo(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
    }

    /** A reader of committed data only, without a group (the CLI assigns partitions itself). */
    KafkaClients.ConsumerSpec consumer() {
        return clients().consumer("actiongate-cli")
                .defaultTo(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000)
                .defaultTo(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000)
                .set(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    }

    /** The factory every client of the command comes from, over the resolved settings. */
    public KafkaClients clients() {
        return KafkaClients.of(clientSettings());
    }
}
