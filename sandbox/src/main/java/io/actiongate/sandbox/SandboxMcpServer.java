package io.actiongate.sandbox;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * A small upstream MCP server for {@code actiongate dev} and tests (Streamable HTTP on loopback, {@code /mcp}), written
 * the way an actiongate-aware MCP server is: a read tool, {@code notes_lookup}; a write tool, {@code notes_post}, that
 * applies each effect once per idempotency key (taken from the explicit {@code actiongate} wrapper, or from
 * {@code _meta} for a plain call) and answers {@code {"status":"applied","id":"note-N"}} (its {@code outputSchema});
 * and a status tool, {@code notes_status}, that says whether a key was applied. Behind the MCP gateway the read is
 * answered here directly; the post is proposed, approved, then run here by the executor's {@code mcp} connector.
 *
 * <p>Tests make the next post misbehave with {@link #failNext}: refuse ({@code isError}), apply but answer outside
 * the {@code outputSchema}, or apply and then answer late.
 */
public final class SandboxMcpServer implements AutoCloseable {

    public static final String READ_TOOL = "notes_lookup";
    public static final String SEND_TOOL = "notes_post";
    public static final String STATUS_TOOL = "notes_status";
    /** Where a plain (unwrapped) call carries its idempotency key. */
    public static final String META_IDEMPOTENCY_KEY = "actiongate/idempotency_key";
    /** Where every call carries its action key ({@code task/call}). */
    public static final String META_ACTION_KEY = "actiongate/action_key";

    /** How the next {@code notes_post} misbehaves. */
    public enum Fault {
        /** Answer {@code isError: true}; nothing applied. */
        REJECT,
        /** Apply, but answer a {@code structuredContent} without {@code id} (outside the outputSchema). */
        MALFORMED,
        /** Apply, then answer only after {@link #SLOW_MILLIS}. */
        SLOW
    }

    public static final long SLOW_MILLIS = 3_000;

    /** One call of the post tool as it arrived: its arguments and {@code _meta}. */
    public record Call(Map<String, Object> arguments, Map<String, Object> meta) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger(SandboxMcpServer.class);

    private final List<Call> calls = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, String> effects = new ConcurrentHashMap<>();
    private final AtomicInteger applied = new AtomicInteger();
    private final AtomicReference<Fault> nextFault = new AtomicReference<>();
    private final AtomicReference<String> lastAuthorization = new AtomicReference<>("");
    private final Server jetty = new Server();
    private final McpSyncServer server;
    private final int port;
    private final java.nio.file.Path effectLog;

    private SandboxMcpServer(int requestedPort, java.nio.file.Path effectLog) throws Exception {
        this.effectLog = effectLog;
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider
                .builder().jsonMapper(new JacksonMcpJsonMapper(JSON)).mcpEndpoint("/mcp").build();
        server = McpServer.sync(transport).serverInfo("actiongate-sandbox-mcp", "1")
                .jsonMapper(new JacksonMcpJsonMapper(JSON))
                // the post tool's inputSchema describes the input, which arrives inside the explicit wrapper; and a
                // MALFORMED answer must reach the client as it is, as from a server that does not check its output
                .validateToolInputs(false)
                .jsonSchemaValidator(new AcceptAll())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(read(), post(), status())
                .build();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(requestedPort);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        // remembers the credential a caller presented (tests check that one is sent); the sandbox requires none
        context.addFilter(new org.eclipse.jetty.ee10.servlet.FilterHolder((jakarta.servlet.Filter) (req, res, chain) -> {
            String authorization = ((jakarta.servlet.http.HttpServletRequest) req).getHeader("Authorization");
            lastAuthorization.set(authorization == null ? "" : authorization);
            chain.doFilter(req, res);
        }), "/*", java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
        ServletHolder holder = new ServletHolder(transport);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/mcp");
        jetty.setHandler(context);
        jetty.start();
        port = connector.getLocalPort();
    }

    private static McpServerFeatures.SyncToolSpecification read() {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(READ_TOOL, Map.of("type", "object", "properties",
                                Map.of("q", Map.of("type", "string", "description", "words to look for"))))
                        .description("Look up the team's notes")
                        .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(true).destructiveHint(false)
                                .build())
                        .build())
                .callHandler((exchange, request) -> text("N-12 (launch checklist): legal review done, two blockers "
                        + "left. N-17 (pricing): finance agrees on the new tiers."))
                .build();
    }

    private McpServerFeatures.SyncToolSpecification post() {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(SEND_TOOL, Map.of("type", "object", "required", List.of("channel", "text"),
                                "properties", Map.of("channel", Map.of("type", "string"),
                                        "text", Map.of("type", "string"))))
                        .description("Post an update to a team channel")
                        .outputSchema(Map.of("type", "object", "required", List.of("status", "id"),
                                "properties", Map.of("status", Map.of("type", "string", "enum", List.of("applied")),
                                        "id", Map.of("type", "string"))))
                        .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(false).destructiveHint(false)
                                .build())
                        .build())
                .callHandler((exchange, request) -> post(request))
                .build();
    }

    private McpSchema.CallToolResult post(McpSchema.CallToolRequest request) {
        Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
        calls.add(new Call(Map.copyOf(arguments), request.meta() == null ? Map.of() : Map.copyOf(request.meta())));
        Optional<String> key = idempotencyKey(arguments, request.meta());
        if (key.isEmpty()) {
            return error("no idempotency key: this tool runs only through actiongate");
        }
        Object input = arguments.containsKey("actiongate") ? arguments.get("input") : arguments;
        if (!(input instanceof Map<?, ?> in) || !(in.get("channel") instanceof String)
                || !(in.get("text") instanceof String)) {
            return error("channel and text are required");
        }
        Fault fault = nextFault.getAndSet(null);
        if (fault == Fault.REJECT) {
            return error("the channel refused the post");
        }
        boolean[] fresh = new boolean[1];
        String id = effects.computeIfAbsent(key.get(), k -> {
            String applies = "note-" + applied.incrementAndGet();
            LOG.info("sandbox MCP server: {} applied {} ({} effect(s) so far)", SEND_TOOL, applies, applied.get());
            fresh[0] = true;
            return applies;
        });
        record(key.get(), arguments, request.meta(), fresh[0], id);
        if (fault == Fault.MALFORMED) {
            return structured(Map.of("status", "applied"));
        }
        if (fault == Fault.SLOW) {
            try {
                Thread.sleep(SLOW_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return structured(Map.of("status", "applied", "id", id));
    }

    private McpServerFeatures.SyncToolSpecification status() {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(STATUS_TOOL, Map.of("type", "object", "required",
                                List.of("idempotency_key"), "properties",
                                Map.of("idempotency_key", Map.of("type", "string"))))
                        .description("Whether the post with this idempotency key was applied")
                        .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(true).destructiveHint(false)
                                .build())
                        .build())
                .callHandler((exchange, request) -> {
                    Object key = request.arguments() == null ? null : request.arguments().get("idempotency_key");
                    String id = key instanceof String k ? effects.get(k) : null;
                    return structured(id == null ? Map.of("status", "not_applied")
                            : Map.of("status", "applied", "id", id));
                })
                .build();
    }

    /**
     * Appends one line for a post that reached the apply step (whether it made a new effect or found its key's),
     * with the action identity it carried, to the effect log, when there is one: every call, never deduplicated, so
     * that a reader sees a key applied twice (a server without this store would have made two effects).
     */
    private void record(String key, Map<String, Object> arguments, Map<String, Object> meta, boolean fresh,
                        String id) {
        if (effectLog == null) {
            return;
        }
        Object wrapperAction = arguments.get("actiongate") instanceof Map<?, ?> w ? w.get("action_key") : null;
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("idempotency_key", key);
        line.put("action_key", wrapperAction);
        line.put("meta_idempotency_key", meta == null ? null : meta.get(META_IDEMPOTENCY_KEY));
        line.put("meta_action_key", meta == null ? null : meta.get(META_ACTION_KEY));
        line.put("new_effect", fresh);
        line.put("id", id);
        synchronized (effects) {
            try {
                java.nio.file.Files.writeString(effectLog, JSON.writeValueAsString(line) + "\n",
                        java.nio.charset.StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.SYNC);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot append to " + effectLog, e);
            }
        }
    }

    private static Optional<String> idempotencyKey(Map<String, Object> arguments, Map<String, Object> meta) {
        if (arguments.get("actiongate") instanceof Map<?, ?> wrapper
                && wrapper.get("idempotency_key") instanceof String key && !key.isEmpty()) {
            return Optional.of(key);
        }
        if (meta != null && meta.get(META_IDEMPOTENCY_KEY) instanceof String key && !key.isEmpty()) {
            return Optional.of(key);
        }
        return Optional.empty();
    }

    /** Starts on a free loopback port. */
    public static SandboxMcpServer start() {
        return start(0);
    }

    /** Starts on {@code port} of the loopback address (0: a free one). */
    public static SandboxMcpServer start(int port) {
        return start(port, null);
    }

    /**
     * Starts on {@code port} of the loopback address (0: a free one), appending every post that reached the apply
     * step to {@code effectLog} (JSON lines: {@code idempotency_key}, the wrapper's {@code action_key}, the
     * {@code _meta} keys, {@code new_effect}, {@code id}), synced, so it outlives this process.
     */
    public static SandboxMcpServer start(int port, java.nio.file.Path effectLog) {
        try {
            return new SandboxMcpServer(port, effectLog);
        } catch (Exception e) {
            throw new IllegalStateException("the sandbox MCP server did not start", e);
        }
    }

    private static McpSchema.CallToolResult text(String text) {
        return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(text).build()), false, null, null);
    }

    private static McpSchema.CallToolResult error(String text) {
        return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(text).build()), true, null, null);
    }

    private static McpSchema.CallToolResult structured(Map<String, Object> body) {
        Map<String, Object> copy = new LinkedHashMap<>(body);
        try {
            return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(JSON.writeValueAsString(copy))
                    .build()), false, copy, null);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes the next call of the post tool misbehave once ({@code null}: behave). */
    public void failNext(Fault fault) {
        nextFault.set(fault);
    }

    /** The {@code Authorization} header of the last request ({@code ""} without one). */
    public String lastAuthorization() {
        return lastAuthorization.get();
    }

    /** The base URL; the endpoint is {@code /mcp}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Every call of the post tool, as it arrived. */
    public List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** How many effects the post tool applied (one per idempotency key at most). */
    public int applied() {
        return applied.get();
    }

    /** The receipt id of the effect applied for {@code idempotencyKey}, if any. */
    public Optional<String> effect(String idempotencyKey) {
        return Optional.ofNullable(effects.get(idempotencyKey));
    }

    /** How often the post tool was called at all (an approved action calls it once). */
    public int directSends() {
        return calls.size();
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

    /** A validator that accepts everything: this server does not check its own answers. */
    private static final class AcceptAll implements JsonSchemaValidator {
        @Override
        public ValidationResponse validate(Map<String, Object> schema, Object structuredContent) {
            return ValidationResponse.asValid(null);
        }
    }
}
