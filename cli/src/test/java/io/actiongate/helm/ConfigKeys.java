package io.actiongate.helm;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.config.CommonConfig;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.node.NodeConfig;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.reconciler.ReconcilerConfig;

/**
 * The configuration keys actiongate defines: the ConfigDefs of every role, the HTTP, node and MCP gateway keys, and the
 * pass-through prefixes (Kafka clients, Streams, executor/reconciler clients, connectors of providers on the
 * classpath).
 */
final class ConfigKeys {

    private static final List<String> PASS_THROUGH_PREFIXES = List.of(
            CommonConfig.KAFKA_CLIENT_PREFIX,
            GateConfig.STREAMS_PREFIX,
            ExecutorConfig.CONSUMER_PREFIX,
            ExecutorConfig.PRODUCER_PREFIX,
            ReconcilerConfig.CONSUMER_PREFIX,
            ReconcilerConfig.PRODUCER_PREFIX,
            ApproverConfig.SENDER_PREFIX,
            // the notifier's destinations by name, and the smtp connector's settings for its email
            NotifierConfig.SLACK_PREFIX,
            NotifierConfig.WEBHOOK_PREFIX,
            NotifierConfig.SMTP_PREFIX);

    /** The settings of one upstream MCP server, {@code mcp.gateway.upstream.NAME.SETTING} (GatewayConfig.from). */
    private static final List<String> UPSTREAM_SETTINGS = List.of("url", "endpoint", "provider", "operations");

    private final Set<String> defined = new TreeSet<>();
    private final Set<String> providers = new TreeSet<>();

    ConfigKeys() {
        defined.addAll(CommonConfig.configDef().names());
        defined.addAll(GateConfig.CONFIG_DEF.names());
        defined.addAll(ExecutorConfig.CONFIG.names());
        defined.addAll(ReconcilerConfig.CONFIG.names());
        defined.addAll(new NodeConfig(Map.of()).values().keySet());
        defined.addAll(HttpServerConfig.KEYS);
        ApproverConfig.KEYS.stream().filter(k -> !k.contains("<")).forEach(defined::add);
        defined.addAll(NotifierConfig.CONFIG_DEF.names());
        defined.addAll(List.of(GatewayConfig.HOST_CONFIG, GatewayConfig.PORT_CONFIG, GatewayConfig.TOKENS_FILE_CONFIG,
                GatewayConfig.REVIEW_URL_CONFIG, GatewayConfig.ANSWER_TIMEOUT_MS_CONFIG, GatewayConfig.UPSTREAMS_CONFIG));
        ServiceLoader.load(ConnectorFactory.class).forEach(f -> providers.add(f.provider()));
        if (providers.isEmpty()) {
            throw new IllegalStateException("no connector factory on the test classpath");
        }
    }

    /** Keys of {@code config} that no part of actiongate reads. */
    Set<String> unknown(Set<String> keys) {
        Set<String> unknown = new TreeSet<>();
        for (String key : keys) {
            if (!isKnown(key)) {
                unknown.add(key);
            }
        }
        return unknown;
    }

    private boolean isKnown(String key) {
        if (defined.contains(key)) {
            return true;
        }
        if (PASS_THROUGH_PREFIXES.stream().anyMatch(p -> key.startsWith(p) && key.length() > p.length())) {
            return true;
        }
        if (key.startsWith(GatewayConfig.UPSTREAM_PREFIX)) {
            String rest = key.substring(GatewayConfig.UPSTREAM_PREFIX.length());
            return UPSTREAM_SETTINGS.stream().anyMatch(s -> rest.endsWith("." + s) && rest.length() > s.length() + 1);
        }
        if (key.startsWith(ConnectorRegistry.PREFIX)) {
            String rest = key.substring(ConnectorRegistry.PREFIX.length());
            int dot = rest.indexOf('.');
            return dot > 0 && dot < rest.length() - 1 && providers.contains(rest.substring(0, dot));
        }
        return false;
    }
}
