package io.actiongate.kafka;

import java.util.Map;
import java.util.Set;
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

    /** Client keys whose values are secrets or name secret material; never printed. */
    private static final Set<String> SECRET_MARKERS = Set.of("password", "jaas", "secret", "token", "key");

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

    /** Whether a client key holds a secret (password, JAAS line, key material) whose value must not be shown. */
    public static boolean isSecret(String key) {
        String lower = key.toLowerCase(java.util.Locale.ROOT);
        return SECRET_MARKERS.stream().anyMatch(lower::contains) && !lower.endsWith(".type")
                && !lower.endsWith(".location") && !lower.endsWith("algorithm");
    }

    /** The settings as one line for logs and messages, secret values replaced by {@code [hidden]}. */
    public static String redacted(Map<String, ?> clientSettings) {
        Map<String, String> shown = new TreeMap<>();
        clientSettings.forEach((k, v) -> shown.put(k, isSecret(k) ? "[hidden]" : String.valueOf(v)));
        return shown.toString();
    }
}
