package io.actiongate.sandbox;

import java.util.List;
import java.util.Map;
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
 * A small upstream MCP server for {@code actiongate dev} (Streamable HTTP on loopback, {@code /mcp}): one read tool,
 * {@code notes_lookup}, and one send tool, {@code notes_post}, shaped like the sandbox webhook provider's
 * {@code get_notes} and {@code post_update}. Behind the MCP gateway the read is answered here; the send is
 * proposed, approved and then run by the executor's webhook connector against the sandbox webhook provider.
 */
public final class SandboxMcpServer implements AutoCloseable {

    public static final String READ_TOOL = "notes_lookup";
    public static final String SEND_TOOL = "notes_post";

    private final AtomicInteger sends = new AtomicInteger();
    private final Server jetty = new Server();
    private final McpSyncServer server;
    private final int port;

    private SandboxMcpServer() throws Exception {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider
                .builder().jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper())).mcpEndpoint("/mcp").build();
        McpServerFeatures.SyncToolSpecification read = McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(READ_TOOL, Map.of("type", "object", "properties",
                                Map.of("q", Map.of("type", "string", "description", "words to look for"))))
                        .description("Look up the team's notes")
                        .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(true).destructiveHint(false)
                                .build())
                        .build())
                .callHandler((exchange, request) -> text("N-12 (launch checklist): legal review done, two blockers "
                        + "left. N-17 (pricing): finance agrees on the new tiers."))
                .build();
        McpServerFeatures.SyncToolSpecification send = McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(SEND_TOOL, Map.of("type", "object", "required", List.of("channel", "text"),
                                "properties", Map.of("channel", Map.of("type", "string"),
                                        "text", Map.of("type", "string"))))
                        .description("Post an update to a team channel")
                        .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(false).destructiveHint(false)
                                .build())
                        .build())
                .callHandler((exchange, request) -> {
                    sends.incrementAndGet();
                    return text("posted");
                })
                .build();
        server = McpServer.sync(transport).serverInfo("actiongate-sandbox-mcp", "1")
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(read, send)
                .build();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        ServletHolder holder = new ServletHolder(transport);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/mcp");
        jetty.setHandler(context);
        jetty.start();
        port = connector.getLocalPort();
    }

    /** Starts on a free loopback port. */
    public static SandboxMcpServer start() {
        try {
            return new SandboxMcpServer();
        } catch (Exception e) {
            throw new IllegalStateException("the sandbox MCP server did not start", e);
        }
    }

    private static McpSchema.CallToolResult text(String text) {
        return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(text).build()), false, null, null);
    }

    /** The base URL; the endpoint is {@code /mcp}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** How often the send tool was called directly (the gateway never does: effects go through the gate). */
    public int directSends() {
        return sends.get();
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
