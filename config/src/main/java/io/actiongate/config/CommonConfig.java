package io.actiongate.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.topics.Topics;

/**
 * The keys every actiongate role shares. Role configs (gate, executor, reconciler) extend {@link #configDef()} with
 * their own keys under their namespace, e.g. {@code GateConfig.configDef() = CommonConfig.configDef().define(...)}.
 *
 * <p>Keys under {@link #KNOWN_NAMESPACES} that this class does not define are accepted and left for their owner;
 * {@link #unrecognizedKeys()} lists anything else so a typo can be reported. Kafka client settings (security,
 * SASL, timeouts) go under {@code kafka.}: {@code kafka.security.protocol=SSL} reaches every client as
 * {@code security.protocol=SSL}.
 */
public class CommonConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    public static final String BOOTSTRAP_SERVERS_DOC = "Kafka brokers to connect to, host:port[,host:port...].";
    public static final String BOOTSTRAP_SERVERS_DEFAULT = "127.0.0.1:9092";

    public static final String TOPIC_PREFIX_CONFIG = "topic.prefix";
    public static final String TOPIC_PREFIX_DOC = "Prefix of every actiongate topic name, e.g. 'actiongate.' gives "
            + "'actiongate.proposals'.";

    public static final String TOPIC_PARTITIONS_CONFIG = "topic.partitions";
    public static final String TOPIC_PARTITIONS_DOC = "Partitions of each topic that 'topics create' makes.";

    public static final String TOPIC_REPLICATION_FACTOR_CONFIG = "topic.replication.factor";
    public static final String TOPIC_REPLICATION_FACTOR_DOC = "Replication factor of each topic that 'topics create' "
            + "makes (1 for a dev broker, 3 in production).";

    public static final String STATE_DIR_CONFIG = "state.dir";
    public static final String STATE_DIR_DOC = "Directory for Kafka Streams state stores (RocksDB).";
    public static final String STATE_DIR_DEFAULT =
            Path.of(System.getProperty("java.io.tmpdir"), "actiongate-state").toString();

    public static final String APPLICATION_ID_CONFIG = "application.id";
    public static final String APPLICATION_ID_DOC = "Kafka Streams application id of the gate; also the prefix of "
            + "its internal topics and consumer group.";
    public static final String APPLICATION_ID_DEFAULT = "actiongate-gate";

    public static final String HTTP_PORT_CONFIG = "http.port";
    public static final String HTTP_PORT_DOC = "Port of the HTTP API (/v1/actions, /metrics, /health); 0 picks a "
            + "free one.";
    public static final int HTTP_PORT_DEFAULT = 8080;

    /** Namespaces owned by other parts of actiongate; keys under them are never reported as unrecognized. */
    public static final List<String> KNOWN_NAMESPACES =
            List.of("gate.", "executor.", "reconciler.", "approver.", "connectors.", "kafka.", "http.", "topic.",
                    "node.", "storage.", "mcp.", "notifier.");

    /** Prefix of pass-through Kafka client settings. */
    public static final String KAFKA_CLIENT_PREFIX = "kafka.";

    public CommonConfig(Map<String, String> originals) {
        this(configDef(), originals);
    }

    /** For role configs that extend {@link #configDef()}. */
    protected CommonConfig(ConfigDef definition, Map<String, String> originals) {
        super(definition, originals, false);
    }

    /** A fresh definition of the common keys; callers may add their own keys to it. */
    public static ConfigDef configDef() {
        return new ConfigDef()
                .define(BOOTSTRAP_SERVERS_CONFIG, Type.LIST, BOOTSTRAP_SERVERS_DEFAULT, Validators.hostPortList(),
                        Importance.HIGH, BOOTSTRAP_SERVERS_DOC)
                .define(TOPIC_PREFIX_CONFIG, Type.STRING, Topics.DEFAULT_PREFIX, Validators.kafkaName(),
                        Importance.MEDIUM, TOPIC_PREFIX_DOC)
                .define(TOPIC_PARTITIONS_CONFIG, Type.INT, Topics.DEFAULT_PARTITIONS, Range.between(1, 10_000),
                        Importance.MEDIUM, TOPIC_PARTITIONS_DOC)
                .define(TOPIC_REPLICATION_FACTOR_CONFIG, Type.SHORT, (short) 1, Range.between(1, 32_767),
                        Importance.MEDIUM, TOPIC_REPLICATION_FACTOR_DOC)
                .define(STATE_DIR_CONFIG, Type.STRING, STATE_DIR_DEFAULT, new ConfigDef.NonEmptyString(),
                        Importance.MEDIUM, STATE_DIR_DOC)
                .define(APPLICATION_ID_CONFIG, Type.STRING, APPLICATION_ID_DEFAULT, Validators.kafkaName(),
                        Importance.MEDIUM, APPLICATION_ID_DOC)
                .define(HTTP_PORT_CONFIG, Type.INT, HTTP_PORT_DEFAULT, Range.between(0, 65_535),
                        Importance.LOW, HTTP_PORT_DOC);
    }

    /** {@code host:port,host:port} as Kafka clients take it. */
    public String bootstrapServers() {
        return String.join(",", getList(BOOTSTRAP_SERVERS_CONFIG));
    }

    public String topicPrefix() {
        return getString(TOPIC_PREFIX_CONFIG);
    }

    public int topicPartitions() {
        return getInt(TOPIC_PARTITIONS_CONFIG);
    }

    public short topicReplicationFactor() {
        return getShort(TOPIC_REPLICATION_FACTOR_CONFIG);
    }

    public Path stateDir() {
        return Path.of(getString(STATE_DIR_CONFIG));
    }

    public String applicationId() {
        return getString(APPLICATION_ID_CONFIG);
    }

    public int httpPort() {
        return getInt(HTTP_PORT_CONFIG);
    }

    /** {@code bootstrap.servers} plus every {@code kafka.*} key with the prefix removed, for any Kafka client. */
    public Map<String, Object> kafkaClientProperties() {
        Map<String, Object> props = new TreeMap<>(originalsWithPrefix(KAFKA_CLIENT_PREFIX, true));
        props.put(BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** Keys neither defined here nor under a {@link #KNOWN_NAMESPACES known namespace}: probably typos. */
    public Set<String> unrecognizedKeys() {
        Set<String> unknown = new TreeSet<>();
        for (String key : originals().keySet()) {
            if (!values().containsKey(key) && KNOWN_NAMESPACES.stream().noneMatch(key::startsWith)) {
                unknown.add(key);
            }
        }
        return unknown;
    }
}
