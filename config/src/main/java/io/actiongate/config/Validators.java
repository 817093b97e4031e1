package io.actiongate.config;

import java.util.List;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** {@link ConfigDef.Validator}s for actiongate's own keys. */
public final class Validators {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");
    private static final Pattern HOST_PORT = Pattern.compile("[^\\s:,]+:\\d{1,5}|\\[[0-9A-Fa-f:.]+\\]:\\d{1,5}");

    private Validators() {
    }

    /** Letters, digits, {@code .}, {@code _} and {@code -} only: legal in Kafka topic names and group ids. */
    public static ConfigDef.Validator kafkaName() {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                String s = (String) value;
                if (s == null || !NAME.matcher(s).matches() || s.length() > 200) {
                    throw new ConfigException(name, value,
                            "must be 1-200 characters of letters, digits, '.', '_' or '-'");
                }
            }

            @Override
            public String toString() {
                return "[A-Za-z0-9._-]{1,200}";
            }
        };
    }

    /** A string (or null: unset) matching {@code regex} as a whole. */
    public static ConfigDef.Validator matching(String regex) {
        Pattern pattern = Pattern.compile(regex);
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                if (value != null && !pattern.matcher(value.toString()).matches()) {
                    throw new ConfigException(name, value, "must match " + regex);
                }
            }

            @Override
            public String toString() {
                return regex;
            }
        };
    }

    /** A non-empty list of {@code host:port} entries. */
    public static ConfigDef.Validator hostPortList() {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                @SuppressWarnings("unchecked")
                List<String> entries = (List<String>) value;
                if (entries == null || entries.isEmpty()) {
                    throw new ConfigException(name, value, "must list at least one host:port");
                }
                for (String entry : entries) {
                    if (!HOST_PORT.matcher(entry).matches() || port(entry) > 65_535) {
                        throw new ConfigException(name, value, "'" + entry + "' is not host:port");
                    }
                }
            }

            @Override
            public String toString() {
                return "host:port[,host:port...]";
            }
        };
    }

    private static int port(String hostPort) {
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }
}
