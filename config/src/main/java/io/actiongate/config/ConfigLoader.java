package io.actiongate.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * Builds actiongate's flat configuration: one optional file ({@code .properties}, {@code .yaml} or {@code .yml}),
 * then environment overrides ({@link EnvironmentOverrides}), later sources winning. YAML nested maps become dotted
 * keys ({@code topic: {prefix: x}} is {@code topic.prefix=x}); YAML lists of scalars become comma-separated values,
 * the form Kafka's {@code LIST} type reads.
 */
public final class ConfigLoader {

    private ConfigLoader() {
    }

    /** The file (may be null: no file) overlaid with overrides taken from {@code environment}. */
    public static Map<String, String> load(Path file, Map<String, String> environment) {
        Map<String, String> merged = new TreeMap<>();
        if (file != null) {
            merged.putAll(readFile(file));
        }
        merged.putAll(EnvironmentOverrides.from(environment));
        return Collections.unmodifiableMap(merged);
    }

    /** The file (may be null) overlaid with the process environment. */
    public static Map<String, String> load(Path file) {
        return load(file, System.getenv());
    }

    /** The keys and values of one configuration file, flattened. */
    public static Map<String, String> readFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("config file " + file + " does not exist or is not a regular file");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        try {
            if (name.endsWith(".properties")) {
                return readProperties(file);
            }
            if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                return readYaml(file);
            }
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + oneLine(e.getMessage()));
        }
        throw new ConfigException("config file " + file + " must end in .properties, .yaml or .yml");
    }

    /**
     * A Kafka client properties file (as Kafka's {@code --command-config} takes): Java properties whatever the file
     * is named, or YAML when it ends in {@code .yaml}/{@code .yml}.
     */
    public static Map<String, String> readClientProperties(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("Kafka client config file " + file + " does not exist or is not a regular file");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return readFile(file);
        }
        try {
            return readProperties(file);
        } catch (IOException e) {
            throw new ConfigException("cannot read Kafka client config file " + file + ": " + oneLine(e.getMessage()));
        }
    }

    private static Map<String, String> readProperties(Path file) throws IOException {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        }
        Map<String, String> flat = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> flat.put(k.trim(), props.getProperty(k).trim()));
        return flat;
    }

    private static Map<String, String> readYaml(Path file) throws IOException {
        JsonNode root;
        try (InputStream in = Files.newInputStream(file)) {
            root = new ObjectMapper(new YAMLFactory()).readTree(in);
        }
        Map<String, String> flat = new TreeMap<>();
        if (root == null || root.isMissingNode() || root.isNull()) {
            return flat;
        }
        if (!root.isObject()) {
            throw new ConfigException("config file " + file + " must hold a YAML mapping at the top level");
        }
        flatten("", root, flat, file);
        return flat;
    }

    private static void flatten(String prefix, JsonNode node, Map<String, String> out, Path file) {
        if (node.isObject()) {
            node.properties().forEach(e ->
                    flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out, file));
        } else if (node.isArray()) {
            StringBuilder joined = new StringBuilder();
            for (JsonNode item : node) {
                if (item.isContainerNode()) {
                    throw new ConfigException("config key " + prefix + " in " + file
                            + " is a list of maps or lists; only lists of plain values are supported");
                }
                if (joined.length() > 0) {
                    joined.append(',');
                }
                joined.append(item.asText());
            }
            out.put(prefix, joined.toString());
        } else if (node.isNull()) {
            out.put(prefix, "");
        } else {
            out.put(prefix, node.asText());
        }
    }

    static String oneLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim();
    }
}
