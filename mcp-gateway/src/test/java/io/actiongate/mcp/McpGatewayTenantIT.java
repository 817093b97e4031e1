package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.client.GateFixture;

/**
 * Tenant identity through the gateway, with the MCP SDK's own client: an authenticated host of org B naming a task of org A
 * in its task header can neither occupy nor answer for org A's call, even with A's exact tool and arguments, and even
 * granted the tool in its own org.
 */
class McpGatewayTenantIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String OTHER_ORG = "globex";
    private static final String OWNER_TOKEN = "owner-host-token-0123456789";
    private static final String OTHER_TOKEN = "other-org-host-token-0123456789";

    @TempDir
    static Path dir;

    static GateFixture gate;
    static SandboxMcpServer upstream;
    static McpGateway gateway;

    @BeforeAll
    static void start(TestInfo test) throws Exception {
        gate = new GateFixture(KAFKA, TestNames.topicPrefix(test), TestNames.applicationId(test), dir.resolve("state"));
        // org B may send email in its own org: only the task's owner stands between it and org A's call
        gate.policy("epoch:" + OTHER_ORG, "epoch", AuthorizationEpoch.newBuilder().setOrgId(OTHER_ORG).setEpoch(1)
                .build());
        gate.policy("grant:" + OTHER_ORG + ":" + GateFixture.PROFILE, "grant", Grant.newBuilder().setOrgId(OTHER_ORG)
                .setProfileId(GateFixture.PROFILE).setTools(List.of(GateFixture.SEND, GateFixture.LOOKUP)).setMode(GrantMode.FULL_ACCESS)
                .setChatEnabled(true).build());
        gate.policy("integration:" + OTHER_ORG + ":" + GateFixture.PROVIDER, "integration", Integration.newBuilder()
                .setOrgId(OTHER_ORG).setProvider(GateFixture.PROVIDER).setEnabled(true).setScopes(List.of()).build());
        upstream = new SandboxMcpServer();
        Path tokens = Files.writeString(dir.resolve("tokens"),
                OWNER_TOKEN + " user-1 " + GateFixture.ORG + " " + GateFixture.PROFILE + "\n"
                        + OTHER_TOKEN + " user-b " + OTHER_ORG + " " + GateFixture.PROFILE + "\n");
        Map<String, String> config = upstream.gatewayConfig(KAFKA.bootstrapServers(), gate.prefix());
        config.put(GatewayConfig.TOKENS_FILE_CONFIG, tokens.toString());
        GatewayConfig gatewayConfig = GatewayConfig.from(config);
        McpImport.run(gatewayConfig, "sandbox", Set.of(GateFixture.LOOKUP, GateFixture.SEND));
        gateway = McpGateway.start(gatewayConfig);
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private static McpSyncClient client(String token) {
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport
                .builder("http://127.0.0.1:" + gateway.port())
                .endpoint(McpGateway.ENDPOINT)
                .addHttpRequestCustomizer((builder, method, uri, body, context) -> {
                    builder.header("Authorization", "Bearer " + token);
                    builder.header("X-ActionGate-Task-Id", GateFixture.TASK); // org A's task, for both hosts
                })
                .build()).requestTimeout(Duration.ofSeconds(60)).build();
        client.initialize();
        return client;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> state(McpSchema.CallToolResult result) {
        assertThat(result.structuredContent()).isInstanceOf(Map.class);
        return (Map<String, Object>) result.structuredContent();
    }

    private static McpSchema.CallToolResult send(McpSyncClient host, Map<String, Object> meta) {
        return host.callTool(McpSchema.CallToolRequest.builder(GateFixture.SEND)
                .arguments(Map.of("to", "ops@example.com", "body", "disk is full")).meta(meta).build());
    }

    @Test
    void shouldRefuseAHostOfAnotherOrgUnderTheOwnersTaskAndAnswerTheOwnerWithItsOwnAction() {
        McpSyncClient other = client(OTHER_TOKEN);
        McpSyncClient owner = client(OWNER_TOKEN);
        try {
            // host B: org A's task header, A's tool and arguments (a derived call id), then A's explicit call id
            McpSchema.CallToolResult derived = send(other, null);
            McpSchema.CallToolResult explicit = send(other, Map.of("tool_call_id", "m-owner-1"));
            for (McpSchema.CallToolResult refused : List.of(derived, explicit)) {
                assertThat(refused.isError()).isTrue();
                assertThat(state(refused)).containsEntry("state", "ERROR").doesNotContainKey("action_key");
                assertThat((String) state(refused).get("detail")).contains("not a task of this host's org");
            }

            // host A then makes the same calls: each is its own action, waiting for A's approval
            for (Map<String, Object> meta : java.util.Arrays.<Map<String, Object>>asList(null,
                    Map.of("tool_call_id", "m-owner-1"))) {
                Map<String, Object> answer = state(send(owner, meta));
                assertThat(answer).containsEntry("state", "WAITING_APPROVAL").doesNotContainKey("reason_code");
                assertThat((String) answer.get("action_key")).startsWith(GateFixture.TASK + "/");
            }
            assertThat(upstream.calls(GateFixture.SEND)).as("nothing was sent before approval").isZero();
        } finally {
            other.closeGracefully();
            owner.closeGracefully();
        }
    }

    @Test
    void shouldRefuseAReadOfAHostOfAnotherOrgUnderTheOwnersTaskBeforeTheUpstreamSeesIt() {
        // host B holds its own grant of the trusted read, but names org A's task: the read is refused like a call
        McpSyncClient other = client(OTHER_TOKEN);
        McpSyncClient owner = client(OWNER_TOKEN);
        try {
            int before = upstream.calls(GateFixture.LOOKUP);
            assertThatThrownBy(() -> other.callTool(McpSchema.CallToolRequest.builder(GateFixture.LOOKUP)
                    .arguments(Map.of("q", "disk")).build()))
                    .isInstanceOfSatisfying(io.modelcontextprotocol.spec.McpError.class, e -> {
                        assertThat(e.getJsonRpcError().code()).isEqualTo(GatewayTools.READ_REFUSED_CODE);
                        assertThat(((Map<?, ?>) e.getJsonRpcError().data()).get("reason_code"))
                                .isEqualTo("TASK_NOT_OWNED");
                    });
            assertThat(upstream.calls(GateFixture.LOOKUP)).as("nothing reached the upstream").isEqualTo(before);
            // the owner's read of its own task goes through
            assertThat(owner.callTool(McpSchema.CallToolRequest.builder(GateFixture.LOOKUP)
                    .arguments(Map.of("q", "disk")).build()).isError()).isNotEqualTo(Boolean.TRUE);
            assertThat(upstream.calls(GateFixture.LOOKUP)).isEqualTo(before + 1);
        } finally {
            other.closeGracefully();
            owner.closeGracefully();
        }
    }
}
