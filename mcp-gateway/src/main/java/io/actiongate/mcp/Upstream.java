package io.actiongate.mcp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.digest.Digests;
import io.actiongate.digest.Jcs;

/**
 * One upstream MCP server (Streamable HTTP) the gateway fronts. {@code provider} is the actiongate provider whose
 * connector runs this server's effects once approved; its tools are named {@code provider:tool} in the policy.
 */
final class Upstream implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final String provider;
    private final Map<String, String> operations;
    private final McpSyncClient client;
    private List<McpSchema.Tool> tools = List.of();
    private long lastPing;
    private boolean lastReachable;

    Upstream(GatewayConfig.UpstreamConfig config, Duration timeout) {
        this(config.name(), config.provider(), config.operations(), config.url(), config.endpoint(), timeout,
                config.credential() == null ? null
                        : ConnectorContext.of(Map.of()).secret(config.credential()).orElse(null));
    }

    Upstream(String name, String provider, Map<String, String> operations, String baseUrl, String endpoint,
            Duration timeout) {
        this(name, provider, operations, baseUrl, endpoint, timeout, null);
    }

    /** {@code secret}: the resolved bearer credential the upstream wants, or null. */
    private Upstream(String name, String provider, Map<String, String> operations, String baseUrl, String endpoint,
            Duration timeout, String secret) {
        this.name = name;
        this.provider = provider;
        this.operations = Map.copyOf(operations);
        HttpClientStreamableHttpTransport.Builder transport = HttpClientStreamableHttpTransport.builder(baseUrl)
                .endpoint(endpoint);
        if (secret != null) {
            if (secret.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
                throw new IllegalArgumentException("the credential of upstream " + name
                        + " holds spaces or control characters");
            }
            transport.addHttpRequestCustomizer((builder, method, uri, body, context) ->
                    builder.header("Authorization", "Bearer " + secret));
        }
        this.client = McpClient.sync(transport.build())
                .requestTimeout(timeout)
                .clientInfo(McpSchema.Implementation.builder("actiongate-mcp-gateway", "1").build())
                .build();
    }

    Upstream connect() {
        client.initialize();
        tools = List.copyOf(client.listTools().tools());
        return this;
    }

    String name() {
        return name;
    }

    String provider() {
        return provider;
    }

    /**
     * The provider operation that runs {@code tool}: {@code NAME/TOOL} for an {@code mcp} upstream, else the configured
     * one or the tool's own name.
     */
    String operation(String tool) {
        return GatewayConfig.UpstreamConfig.operation(name, provider, operations, tool);
    }

    List<McpSchema.Tool> tools() {
        return tools;
    }

    /**
     * Whether the upstream answers a ping now (asked at most every five seconds; readiness probes come often).
     * Names of upstreams only in logs: the answer is a boolean.
     */
    synchronized boolean reachable() {
        long now = System.nanoTime();
        if (lastPing != 0 && now - lastPing < 5_000_000_000L) {
            return lastReachable;
        }
        boolean ok;
        try {
            client.ping();
            ok = true;
        } catch (RuntimeException e) {
            ok = false;
        }
        lastPing = now;
        lastReachable = ok;
        return ok;
    }

    McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
        return client.callTool(McpSchema.CallToolRequest.builder(tool).arguments(arguments).build());
    }

    /**
     * {@code sha256:} + hex SHA-256 of the JCS of the tool's input schema: the {@code schema_hash} an operator trusts
     * with {@code mcp import}, and the {@code tool_schema_hash} of every proposal, so a changed upstream schema is
     * {@code TOOL_SCHEMA_CHANGED} at the gate and never a trusted read.
     */
    static String schemaHash(McpSchema.Tool tool) {
        try {
            String json = JSON.writeValueAsString(tool.inputSchema());
            return Digests.PREFIX + Digests.sha256Hex(Jcs.canonicalize(json).getBytes(StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("tool " + tool.name() + ": input schema is not JSON", e);
        }
    }

    @Override
    public void close() {
        client.closeGracefully();
    }
}
