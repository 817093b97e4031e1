package io.actiongate.config;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Environment variables that override configuration keys. A variable {@code ACTIONGATE_SOME_KEY} sets
 * {@code some.key}: the {@code ACTIONGATE_} prefix is stripped, the rest lower-cased, a double underscore
 * {@code __} becomes a dash {@code -} and every other underscore a dot. Examples:
 * <ul>
 *   <li>{@code ACTIONGATE_BOOTSTRAP_SERVERS} &rarr; {@code bootstrap.servers}</li>
 *   <li>{@code ACTIONGATE_TOPIC_PARTITIONS} &rarr; {@code topic.partitions}</li>
 *   <li>{@code ACTIONGATE_CONNECTORS_WEBHOOK_BASE__URL} &rarr; {@code connectors.webhook.base-url}</li>
 * </ul>
 * {@code ACTIONGATE_JAVA_OPTS} belongs to the launcher script and {@code ACTIONGATE_LOG_FORMAT} to logging (read by
 * logback.xml before any configuration is loaded); neither is a configuration key.
 */
public final class EnvironmentOverrides {

    public static final String PREFIX = "ACTIONGATE_";

    /** Variables the launcher uses for itself. */
    private static final Set<String> RESERVED = Set.of("ACTIONGATE_JAVA_OPTS", "ACTIONGATE_LOG_FORMAT");

    private EnvironmentOverrides() {
    }

    /** The configuration keys and values set by {@code environment}. */
    public static Map<String, String> from(Map<String, String> environment) {
        Map<String, String> overrides = new TreeMap<>();
        environment.forEach((name, value) -> {
            if (name.startsWith(PREFIX) && name.length() > PREFIX.length() && !RESERVED.contains(name)) {
                overrides.put(toKey(name), value);
            }
        });
        return overrides;
    }

    /** {@code ACTIONGATE_BOOTSTRAP_SERVERS} &rarr; {@code bootstrap.servers}. */
    public static String toKey(String variable) {
        String rest = variable.substring(PREFIX.length()).toLowerCase(Locale.ROOT);
        return rest.replace("__", "\u0000").replace('_', '.').replace('\u0000', '-');
    }

    /** {@code bootstrap.servers} &rarr; {@code ACTIONGATE_BOOTSTRAP_SERVERS}, for documentation and messages. */
    public static String toVariable(String key) {
        return PREFIX + key.replace("-", "__").replace('.', '_').toUpperCase(Locale.ROOT);
    }
}
