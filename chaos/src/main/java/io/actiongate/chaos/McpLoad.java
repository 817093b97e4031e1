package io.actiongate.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.key.ActionKey;
import io.actiongate.sandbox.SandboxMcpServer;

/**
 * The chaos run's MCP host: one MCP client (the SDK's, as the gateway's own tests use) that calls the gated write
 * tool {@code notes_post} through the MCP gateway, each call with its own {@code _meta.tool_call_id}, approves a
 * {@code WAITING_APPROVAL} answer with the load's signing key (bound to the answer's {@code action_digest}), and
 * calls again until the state is settled. When an answer is lost (the gateway killed, the connection dropped, a
 * timeout) it opens a new session and redelivers the same call, same task and same tool call id, as a host does.
 */
final class McpLoad implements AutoCloseable {

    static final String UPSTREAM = "notes";
    static final String TOOL = SandboxMcpServer.SEND_TOOL;
    static final String TOKEN = "chaos-mcp-host-token-0123456789";
    static final String HOST = "mcp-host";
    private static final int MAX_OPEN = 6;
    private static final Set<String> SETTLED = Set.of("SUCCEEDED", "FAILED", "REJECTED", "DENIED", "EXPIRED",
            "CANCELLED", "UNKNOWN", "NOT_APPLIED");

    /** One call the host issued; {@code answered} once the gateway answered it a state (its proposal published). */
    static final class Call {
        final String key;
        final String callId;
        final String marker;
        volatile boolean answered;
        volatile boolean approved;
        volatile String state = "";
        volatile int deliveries;
        /** its last delivery lost the answer: the next one is a redelivery */
        volatile boolean lost;

        Call(String key, String callId, String marker) {
            this.key = key;
            this.callId = callId;
            this.marker = marker;
        }

        boolean settled() {
            return SETTLED.contains(state);
        }
    }

    private final String gatewayUrl;
    private final String taskId;
    private final Load load;
    private final long intervalMs;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final AtomicBoolean issuing = new AtomicBoolean(true);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong lostAnswers = new AtomicLong();
    private final AtomicLong redeliveries = new AtomicLong();
    private final Thread thread;
    private McpSyncClient client;
    private int next;

    McpLoad(String gatewayUrl, String taskId, Load load, double callsPerSecond) {
        this.gatewayUrl = gatewayUrl;
        this.taskId = taskId;
        this.load = load;
        this.intervalMs = (long) (1000 / callsPerSecond);
        this.thread = new Thread(this::loop, "chaos-mcp-host");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** No new calls from now on; the open ones are still called until they settle. */
    void stopIssuing() {
        issuing.set(false);
    }

    /** Waits until every call settled or the time ran out; returns the calls still open. */
    long awaitSettled(Duration timeout) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (System.currentTimeMillis() < deadline && calls.stream().anyMatch(c -> !c.settled())) {
            Thread.sleep(500);
        }
        return calls.stream().filter(c -> !c.settled()).count();
    }

    private void loop() {
        long nextIssue = System.currentTimeMillis();
        while (running.get()) {
            long now = System.currentTimeMillis();
            List<Call> open = calls.stream().filter(c -> !c.settled()).toList();
            if (issuing.get() && now >= nextIssue && open.size() < MAX_OPEN) {
                int i = next++;
                String callId = "m" + i;
                Call call = new Call(ActionKey.format(taskId, callId), callId, Load.INPUT_MARKER + callId + "-mcp");
                calls.add(call);
                nextIssue = now + intervalMs;
                open = new ArrayList<>(open);
                open.add(call);
            }
            for (Call call : open) {
                if (!running.get()) {
                    return;
                }
                deliver(call);
            }
            sleep(300);
        }
    }

    private void deliver(Call call) {
        try {
            if (client == null) {
                client = connect();
            }
            if (call.lost) {
                redeliveries.incrementAndGet();
                call.lost = false;
            }
            call.deliveries++;
            McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder(TOOL)
                    .arguments(Map.of("channel", "chaos", "text", call.marker))
                    .meta(Map.of("tool_call_id", call.callId)).build());
            Object structured = result.structuredContent();
            if (!(structured instanceof Map<?, ?> answer) || !(answer.get("state") instanceof String state)) {
                return;
            }
            call.answered = true;
            call.state = state;
            if ("WAITING_APPROVAL".equals(state) && !call.approved && answer.get("action_digest") instanceof String d) {
                load.approve(call.callId, d);
                call.approved = true;
            }
        } catch (RuntimeException e) {
            // the answer is lost: the next round opens a new session and sends the same call again
            lostAnswers.incrementAndGet();
            call.lost = true;
            closeClient();
            sleep(500);
        }
    }

    private McpSyncClient connect() {
        McpSyncClient c = McpClient.sync(HttpClientStreamableHttpTransport.builder(gatewayUrl)
                .endpoint(io.actiongate.mcp.McpGateway.ENDPOINT)
                .addHttpRequestCustomizer((builder, method, uri, body, context) -> builder
                        .header("Authorization", "Bearer " + TOKEN).header("X-ActionGate-Task-Id", taskId))
                .build()).requestTimeout(Duration.ofSeconds(10)).build();
        try {
            c.initialize();
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void closeClient() {
        McpSyncClient c = client;
        client = null;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // the session is gone with the gateway
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    long lostAnswers() {
        return lostAnswers.get();
    }

    long redeliveries() {
        return redeliveries.get();
    }

    @Override
    public void close() {
        running.set(false);
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeClient();
    }
}
