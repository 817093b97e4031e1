package io.actiongate.dev;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.actiongate.config.CommonConfig;

/**
 * What a {@link DevComponent} gets: the flat configuration with {@code bootstrap.servers}, {@code topic.prefix} and
 * {@code state.dir} pointing at the dev environment, and a place for "next step" hints.
 */
public final class DevContext {

    private final Map<String, String> config;
    private final Path workDir;
    private final List<String> hints = new ArrayList<>();

    DevContext(Map<String, String> config, Path workDir) {
        this.config = Collections.unmodifiableMap(new TreeMap<>(config));
        this.workDir = workDir;
    }

    /** Flat configuration (file, environment, then dev's own settings) for role configs to parse. */
    public Map<String, String> config() {
        return config;
    }

    public String bootstrapServers() {
        return config.get(CommonConfig.BOOTSTRAP_SERVERS_CONFIG);
    }

    public String topicPrefix() {
        return config.get(CommonConfig.TOPIC_PREFIX_CONFIG);
    }

    /** A directory for this dev run's files (state stores, sandbox data). */
    public Path workDir() {
        return workDir;
    }

    /** Adds a line to the "next steps" printed once everything runs. */
    public void hint(String line) {
        hints.add(line);
    }

    List<String> hints() {
        return List.copyOf(hints);
    }
}
