package io.actiongate.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Reading a flat configuration through a {@link ConfigDef}, and rendering a definition as the Markdown table of
 * {@code docs/configuration.md} (the way Kafka renders its own with {@code ConfigDef.toHtml}).
 */
public final class ConfigDefs {

    private ConfigDefs() {
    }

    /**
     * The values of {@code def}'s keys in {@code raw}, parsed and validated; a blank value counts as unset, so it
     * takes the default. A bad or missing value throws {@link IllegalArgumentException} whose message names the key
     * (Kafka's {@link ConfigException} text; a {@link ConfigDef.Type#PASSWORD} value is never shown).
     */
    public static Map<String, Object> parse(ConfigDef def, Map<String, ?> raw) {
        Map<String, Object> set = new HashMap<>();
        for (String key : def.names()) {
            Object value = raw.get(key);
            if (value != null && !(value instanceof String s && s.isBlank())) {
                set.put(key, value);
            }
        }
        try {
            return def.parse(set);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The keys of {@code child} under {@code prefix} ({@code mcp.gateway.upstream.NAME.} + {@code url}). */
    public static ConfigDef prefixed(String prefix, ConfigDef child) {
        ConfigDef def = new ConfigDef();
        def.embed(prefix, "", 0, child);
        return def;
    }

    /** A {@link ConfigDef.Type#PASSWORD} value, or null when unset. */
    public static String password(Map<String, Object> parsed, String key) {
        Password p = (Password) parsed.get(key);
        return p == null ? null : p.value();
    }

    /**
     * One Markdown table row per key of {@code def} (sorted by name), leaving out {@code skip}: key, type, default,
     * valid values, importance, description. Defaults under the JVM's temporary directory are shown as
     * {@code ${java.io.tmpdir}} so the table does not depend on the machine.
     */
    public static String markdown(ConfigDef def, Set<String> skip) {
        StringBuilder out = new StringBuilder("| Key | Type | Default | Valid values | Importance | Description |\n"
                + "|---|---|---|---|---|---|\n");
        def.configKeys().values().stream().filter(k -> !skip.contains(k.name) && !k.internalConfig)
                .sorted((a, b) -> a.name.compareTo(b.name))
                .forEach(k -> out.append("| `").append(k.name).append("` | ")
                        .append(k.type.name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                        .append(cell(defaultText(k))).append(" | ")
                        .append(cell(k.validator == null ? "" : k.validator.toString())).append(" | ")
                        .append(k.importance.name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                        .append(cell(k.documentation)).append(" |\n"));
        return out.toString();
    }

    private static String defaultText(ConfigDef.ConfigKey k) {
        if (!k.hasDefault()) {
            return "required";
        }
        Object d = k.defaultValue;
        if (d == null) {
            return "";
        }
        String text = d instanceof List<?> list ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                : d instanceof Password p ? (p.value().isEmpty() ? "" : "[hidden]") : String.valueOf(d);
        if (text.isEmpty()) {
            return "\"\"";
        }
        String tmp = System.getProperty("java.io.tmpdir");
        if (tmp != null && !tmp.isEmpty() && text.startsWith(tmp)) {
            text = "${java.io.tmpdir}" + text.substring(tmp.length());
        }
        return "`" + text + "`";
    }

    private static String cell(String text) {
        return text == null ? "" : text.replace("|", "\\|").replace("\n", " ");
    }
}
