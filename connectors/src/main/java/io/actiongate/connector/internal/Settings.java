package io.actiongate.connector.internal;

import io.actiongate.connector.spi.ConnectorContext;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** Typed reads of connector settings; every failure names the setting, never its value. */
public final class Settings {

    private Settings() {
    }

    public static Duration millis(ConnectorContext context, String key, long defaultMillis) {
        long value = longValue(context, key, defaultMillis);
        if (value <= 0) {
            throw new IllegalArgumentException("connector setting '" + key + "' must be positive");
        }
        return Duration.ofMillis(value);
    }

    public static long longValue(ConnectorContext context, String key, long defaultValue) {
        String raw = context.setting(key).map(String::strip).orElse("");
        if (raw.isEmpty()) {
            return defaultValue;
        }
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("connector setting '" + key + "' is not a number", e);
        }
    }

    public static int port(ConnectorContext context, String key, int defaultPort) {
        long value = longValue(context, key, defaultPort);
        if (value < 1 || value > 65_535) {
            throw new IllegalArgumentException("connector setting '" + key + "' is not a TCP port");
        }
        return (int) value;
    }

    public static boolean bool(ConnectorContext context, String key, boolean defaultValue) {
        String raw = context.setting(key).map(String::strip).orElse("");
        if (raw.isEmpty()) {
            return defaultValue;
        }
        if (raw.equalsIgnoreCase("true")) {
            return true;
        }
        if (raw.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("connector setting '" + key + "' must be true or false");
    }

    /** A comma-separated list; blanks dropped, order kept. */
    public static Set<String> list(ConnectorContext context, String key) {
        String raw = context.setting(key).orElse("");
        Set<String> values = new LinkedHashSet<>();
        Arrays.stream(raw.split(",")).map(String::strip).filter(s -> !s.isEmpty()).forEach(values::add);
        return Set.copyOf(values);
    }

    public static Set<String> lowerCaseList(ConnectorContext context, String key) {
        Set<String> values = new LinkedHashSet<>();
        list(context, key).forEach(v -> values.add(v.toLowerCase(Locale.ROOT)));
        return Set.copyOf(values);
    }

    /** Resolves the secret reference held in setting {@code key}, if the setting is present. */
    public static String secret(ConnectorContext context, String key) {
        return context.setting(key).filter(s -> !s.isBlank()).flatMap(context::secret).orElse(null);
    }
}
