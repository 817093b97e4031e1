package io.actiongate.kafka;

import java.util.Map;
import java.util.TreeMap;

/**
 * The Kafka client settings of actiongate's flat configuration, the same for every producer, consumer, admin and
 * Streams client of every role and command: {@code bootstrap.servers} plus every {@code kafka.*} key with the
 * prefix removed ({@code kafka.security.protocol=SASL_SSL} becomes {@code security.protocol=SASL_SSL}).
 */
public final class KafkaClientSettings {

    /** Prefix of pass-through Kafka client settings in actiongate's configuration. */
    public static final String PREFIX = "kafka.";
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";

    private KafkaClientSettings() {
    }

    /** {@code bootstrap.servers} (default {@value #DEFAULT_BOOTSTRAP_SERVERS}) and the {@code kafka.*} keys. */
    public static Map<String, Object> from(Map<String, String> flatConfig) {
        Map<String, Object> props = new TreeMap<>();
        flatConfig.forEach((key, value) -> {
            if (key.startsWith(PREFIX) && key.length() > PREFIX.length() && value != null) {
                props.put(key.substring(PREFIX.length()), value);
            }
        });
        String bootstrap = flatConfig.get(BOOTSTRAP_SERVERS);
        props.put(BOOTSTRAP_SERVERS, bootstrap == null || bootstrap.isBlank() ? DEFAULT_BOOTSTRAP_SERVERS
                : bootstrap.strip());
        return props;
    }
}
