package io.actiongate.mcp;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.actiongate.kafka.KafkaClientSettings;
import io.actiongate.policy.TaskOwnership;

/**
 * The gateway's settings, from the same flat configuration as every role ({@code bootstrap.servers},
 * {@code topic.prefix}, the {@code kafka.*} client settings every Kafka client of the gateway uses) plus the
 * {@code mcp.gateway.*} keys documented in the README. {@code taskDefaultOrg} is the gate's
 * {@code gate.task.default.org}: the gateway decides task ownership by the gate's rule.
 */
public record GatewayConfig(String bootstrapServers, String topicPrefix, String host, int port, Path tokensFile,
        String reviewUrl, Duration answerTimeout, List<UpstreamConfig> upstreams, Map<String, Object> kafkaClient,
        String taskDefaultOrg) {

    public GatewayConfig {
        upstreams = List.copyOf(upstreams);
        kafkaClient = Map.copyOf(kafkaClient);
    }

    @Override
    public String toString() {
        // kafka.* may hold credentials (sasl.jaas.config): only their names
        return "GatewayConfig[" + bootstrapServers + " " + topicPrefix + " " + host + ":" + port + " upstreams="
                + upstreams.stream().map(UpstreamConfig::name).toList() + " kafka=" + kafkaClient.keySet() + "]";
    }

    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    public static final String TOPIC_PREFIX_CONFIG = "topic.prefix";
    public static final String HOST_CONFIG = "mcp.gateway.host";
    public static final String PORT_CONFIG = "mcp.gateway.port";
    public static final String TOKENS_FILE_CONFIG = "mcp.gateway.tokens.file";
    public static final String REVIEW_URL_CONFIG = "mcp.gateway.review.url";
    public static final String ANSWER_TIMEOUT_MS_CONFIG = "mcp.gateway.answer.timeout.ms";
    public static final String UPSTREAMS_CONFIG = "mcp.gateway.upstreams";
    public static final String UPSTREAM_PREFIX = "mcp.gateway.upstream.";
    /** An upstream's name: also the first half of its tools' operations ({@code NAME/TOOL}). */
    static final java.util.regex.Pattern UPSTREAM_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /** The provider of an upstream whose tools run on the upstream itself (the {@code mcp} connector). */
    public static final String MCP_PROVIDER = "mcp";

    /**
     * One upstream MCP server: {@code mcp.gateway.upstream.NAME.url}, {@code .endpoint}, {@code .provider} (default
     * {@code mcp}: approved calls run on the upstream's own tool, operation {@code NAME/TOOL}) and, for any other
     * provider only, {@code .operations} ({@code tool:operation,...}: the provider operation that runs a tool;
     * default the tool's own name).
     */
    public record UpstreamConfig(String name, String url, String endpoint, String provider,
            Map<String, String> operations, String credential) {

        public UpstreamConfig {
            operations = Map.copyOf(operations);
        }

        public String operation(String tool) {
            return operation(name, provider, operations, tool);
        }

        static String operation(String name, String provider, Map<String, String> operations, String tool) {
            return MCP_PROVIDER.equals(provider) ? name + "/" + tool : operations.getOrDefault(tool, tool);
        }
    }

    public static GatewayConfig from(Map<String, String> config) {
        List<UpstreamConfig> upstreams = new ArrayList<>();
        for (String name : required(config, UPSTREAMS_CONFIG).split(",")) {
            String n = name.strip();
            if (n.isEmpty()) {
                continue;
            }
            if (!UPSTREAM_NAME.matcher(n).matches()) {
                throw new IllegalArgumentException(UPSTREAMS_CONFIG + ": '" + n + "' is not an upstream name ("
                        + UPSTREAM_NAME.pattern() + ")");
            }
            String provider = config.getOrDefault(UPSTREAM_PREFIX + n + ".provider", MCP_PROVIDER).strip();
            Map<String, String> operations = operations(UPSTREAM_PREFIX + n + ".operations",
                    config.get(UPSTREAM_PREFIX + n + ".operations"));
            if (MCP_PROVIDER.equals(provider) && !operations.isEmpty()) {
                throw new IllegalArgumentException(UPSTREAM_PREFIX + n + ".operations: the tools of an mcp upstream "
                        + "are their own operations (" + n + "/TOOL); map operations only for another provider");
            }
            upstreams.add(new UpstreamConfig(n, required(config, UPSTREAM_PREFIX + n + ".url"),
                    config.getOrDefault(UPSTREAM_PREFIX + n + ".endpoint", "/mcp"), provider, operations,
                    credential(UPSTREAM_PREFIX + n + ".credential", config.get(UPSTREAM_PREFIX + n + ".credential"))));
        }
        if (upstreams.isEmpty()) {
            throw new IllegalArgumentException(UPSTREAMS_CONFIG + ": name at least one upstream MCP server");
        }
        int port = Integer.parseInt(config.getOrDefault(PORT_CONFIG, "8090"));
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(PORT_CONFIG + ": 0 (any free port) to 65535");
        }
        long timeout = Long.parseLong(config.getOrDefault(ANSWER_TIMEOUT_MS_CONFIG, "5000"));
        if (timeout <= 0) {
            throw new IllegalArgumentException(ANSWER_TIMEOUT_MS_CONFIG + ": must be positive");
        }
        return new GatewayConfig(required(config, BOOTSTRAP_SERVERS_CONFIG),
                config.getOrDefault(TOPIC_PREFIX_CONFIG, "actiongate."),
                config.getOrDefault(HOST_CONFIG, "0.0.0.0"), port,
                Path.of(required(config, TOKENS_FILE_CONFIG)), required(config, REVIEW_URL_CONFIG),
                Duration.ofMillis(timeout), upstreams, KafkaClientSettings.from(config),
                TaskOwnership.defaultOrg(config));
    }

    private static String credential(String key, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String ref = value.strip();
        if (!ref.startsWith("env:") && !ref.startsWith("file:")) {
            throw new IllegalArgumentException(key + ": a secret reference, env:NAME or file:PATH, never the secret");
        }
        return ref;
    }

    private static Map<String, String> operations(String key, String value) {
        Map<String, String> operations = new java.util.LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            return operations;
        }
        for (String pair : value.split(",")) {
            String[] parts = pair.strip().split(":");
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new IllegalArgumentException(key + ": expected tool:operation[,tool:operation...]");
            }
            operations.put(parts[0].strip(), parts[1].strip());
        }
        return operations;
    }

    private static String required(Map<String, String> config, String key) {
        String v = config.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(key + " is required");
        }
        return v.strip();
    }
}
