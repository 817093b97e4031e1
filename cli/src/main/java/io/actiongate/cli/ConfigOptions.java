package io.actiongate.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import io.actiongate.config.CommonConfig;
import io.actiongate.config.ConfigLoader;
import picocli.CommandLine.Option;

/**
 * The {@code --config FILE} option as a picocli mixin. Precedence, lowest first: defaults, the file, {@code
 * ACTIONGATE_*} environment variables, then the command's own options.
 */
public final class ConfigOptions {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Configuration file (.properties, .yaml or .yml). ACTIONGATE_* environment variables "
                    + "override it; command options override both.")
    private Path file;

    @Option(names = "--kafka-config", paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.*, ssl.*, ...), as for Kafka's own "
                    + "--command-config; each key counts as kafka.KEY and wins over --config and the environment.")
    private Path kafkaConfigFile;

    public Path file() {
        return file;
    }

    /** The flat configuration with {@code overrides} (command options; null values are skipped) applied last. */
    public Map<String, String> load(Map<String, String> overrides) {
        Map<String, String> merged = new TreeMap<>(merge(file, kafkaConfigFile, System.getenv()));
        overrides.forEach((k, v) -> {
            if (v != null) {
                merged.put(k, v);
            }
        });
        return merged;
    }

    /**
     * The configuration file (may be null) overlaid with {@code environment}'s {@code ACTIONGATE_*} overrides, then
     * with the Kafka client properties file (may be null): its {@code bootstrap.servers} as is, every other key as
     * {@code kafka.KEY}.
     */
    public static Map<String, String> merge(Path file, Path kafkaConfigFile, Map<String, String> environment) {
        Map<String, String> merged = new TreeMap<>(ConfigLoader.load(file, environment));
        if (kafkaConfigFile != null) {
            ConfigLoader.readClientProperties(kafkaConfigFile).forEach((k, v) -> merged.put(
                    k.equals(CommonConfig.BOOTSTRAP_SERVERS_CONFIG) ? k : CommonConfig.KAFKA_CLIENT_PREFIX + k, v));
        }
        return merged;
    }

    /** Warns on {@code err} about keys no part of actiongate reads, e.g. a misspelt {@code bootstrap.server}. */
    public static void warnUnrecognized(CommonConfig config, PrintWriter err) {
        if (!config.unrecognizedKeys().isEmpty()) {
            err.println("warning: unrecognized configuration keys (ignored): "
                    + String.join(", ", config.unrecognizedKeys()));
        }
    }
}
