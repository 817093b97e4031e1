package io.actiongate.mcp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * An upstream MCP server for tests, on loopback: {@code lookup} (a read, annotated read-only), {@code send_email}
 * (an effect) and {@code peek} (annotated read-only, but never trusted by the operator). Counts calls per tool.
 */
final class SandboxMcpServer implements AutoCloseable {

    private static final Map<String, Object> SCHEMA = Map.of("type", "object", "properties",
            Map.of("q", Map.of("type", "string"), "to", Map.of("type", "string"), "body", Map.of("type", "string")));

    /** {@code send_email} declares one: what the upstream itself answers, never what the gateway answers. */
    static final Map<String, Object> OUTPUT_SCHEMA = Map.of("type", "object", "required", List.of("id"),
            "properties", Map.of("id", Map.of("type", "string")));

    private volatile String lastAuthorization = "";
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final Server jetty = new Server();
    private final McpSyncServer server;
    private final int port;

    SandboxMcpServer() throws Exception {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider
                .builder().jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).mcpEndpoint("/mcp").build();
        server = McpServer.sync(transport).serverInfo("sandbox-mcp", "1")
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(tool("lookup", "Look up notes", Boolean.TRUE, "notes about "),
                        tool("send_email", "Send an email", Boolean.FALSE, "sent to ", OUTPUT_SCHEMA),
                        tool("peek", "Claims to be a harmless read", Boolean.TRUE, "peeked at "))
                .build();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        // the bearer credential the gateway presented (the sandbox requires none)
        context.addFilter(new org.eclipse.jetty.ee10.servlet.FilterHolder((jakarta.servlet.Filter) (req, res, chain) -> {
            String authorization = ((jakarta.servlet.http.HttpServletRequest) req).getHeader("Authorization");
            lastAuthorization = authorization == null ? "" : authorization;
            chain.doFilter(req, res);
        }), "/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
        ServletHolder holder = new ServletHolder(transport);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/mcp");
        jetty.setHandler(context);
        jetty.start();
        port = connector.getLocalPort();
    }

    private McpServerFeatures.SyncToolSpecification tool(String name, String description, Boolean readOnly,
            String answer) {
        return tool(name, description, readOnly, answer, null);
    }

    private McpServerFeatures.SyncToolSpecification tool(String name, String description, Boolean readOnly,
            String answer, Map<String, Object> outputSchema) {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(name, SCHEMA).description(description).outputSchema(outputSchema)
                        .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(readOnly).build()).build())
                .callHandler((exchange, request) -> {
                    calls.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                    Object arg = request.arguments() == null ? null
                            : request.arguments().getOrDefault("q", request.arguments().get("to"));
                    return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(answer + arg).build()), false,
                            null, null);
                })
                .build();
    }

    /**
     * A gateway's settings in front of this server as upstream {@code sandbox} (provider {@code webhook}, the
     * fixture's), on loopback with a free port and the gate's topics under {@code prefix}; a test adds its hosts.
     */
    Map<String, String> gatewayConfig(String bootstrapServers, String prefix) {
        Map<String, String> config = new java.util.HashMap<>();
        config.put(GatewayConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(GatewayConfig.TOPIC_PREFIX_CONFIG, prefix);
        config.put(GatewayConfig.HOST_CONFIG, "127.0.0.1");
        config.put(GatewayConfig.PORT_CONFIG, "0");
        config.put(GatewayConfig.REVIEW_URL_CONFIG, "http://review.example/actions/{action_key}");
        config.put(GatewayConfig.ANSWER_TIMEOUT_MS_CONFIG, "30000");
        config.put(GatewayConfig.UPSTREAMS_CONFIG, "sandbox");
        config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.url", url());
        config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.provider", io.actiongate.client.GateFixture.PROVIDER);
        return config;
    }

    /** The {@code Authorization} header of the last request ({@code ""} without one). */
    String lastAuthorization() {
        return lastAuthorization;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    int calls(String tool) {
        AtomicInteger n = calls.get(tool);
        return n == null ? 0 : n.get();
    }

    @Override
    public void close() {
        server.closeGracefully();
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the sandbox MCP server did not stop", e);
        }
    }
}
