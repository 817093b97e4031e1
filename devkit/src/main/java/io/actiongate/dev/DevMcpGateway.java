package io.actiongate.dev;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpGateway;
import io.actiongate.mcp.McpImport;
import io.actiongate.sandbox.SandboxMcpServer;

/**
 * The MCP gateway of {@code actiongate dev} in front of the sandbox MCP server ({@code notes_lookup}, a read run by
 * the webhook connector's {@code get_notes}; {@code notes_post}, a send run as {@code post_update}). Both tools are
 * imported as an operator would ({@code mcp import}); the host token is generated once per data directory. Settings
 * {@code mcp.gateway.port} (default 8090, or a free port when {@code http.port=0}) and {@code mcp.gateway.review.url}
 * of the user's configuration win.
 */
final class DevMcpGateway implements DevComponent {

    private final java.util.function.Supplier<String> reviewUrl;

    /** @param reviewUrl the review page URL pattern, asked at start (after the approval service is up) */
    DevMcpGateway(java.util.function.Supplier<String> reviewUrl) {
        this.reviewUrl = reviewUrl;
    }

    static final String HOST_PRINCIPAL = "assistant-host";

    @Override
    public String name() {
        return "MCP gateway (sandbox MCP server)";
    }

    @Override
    public AutoCloseable start(DevContext context) throws Exception {
        Path secrets = Files.createDirectories(context.workDir().resolve("secrets"));
        Path tokenFile = secrets.resolve("mcp-host-token");
        if (!Files.exists(tokenFile)) {
            byte[] bytes = new byte[18];
            new SecureRandom().nextBytes(bytes);
            Files.createFile(tokenFile,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(tokenFile, HexFormat.of().formatHex(bytes), StandardCharsets.UTF_8);
        }
        String token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        Path hosts = secrets.resolve("mcp-hosts");
        // the token file's secret in a second file: owner-only as well
        OwnerOnlyFiles.writeString(hosts, token + " " + HOST_PRINCIPAL + " " + DemoPolicy.ORG + " "
                + DemoPolicy.PROFILE + "\n");

        SandboxMcpServer upstream = SandboxMcpServer.start();
        try {
            Map<String, String> config = new HashMap<>();
            config.put(GatewayConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers());
            config.put(GatewayConfig.TOPIC_PREFIX_CONFIG, context.topicPrefix());
            config.put(GatewayConfig.HOST_CONFIG, "127.0.0.1");
            // 8090 unless configured; with http.port=0 (tests, several dev runs) a free port as well
            config.put(GatewayConfig.PORT_CONFIG, context.config().getOrDefault(GatewayConfig.PORT_CONFIG,
                    "0".equals(context.config().get("http.port")) ? "0" : "8090"));
            config.put(GatewayConfig.TOKENS_FILE_CONFIG, hosts.toString());
            config.put(GatewayConfig.REVIEW_URL_CONFIG, context.config().getOrDefault(GatewayConfig.REVIEW_URL_CONFIG,
                    reviewUrl.get()));
            config.put(GatewayConfig.UPSTREAMS_CONFIG, "sandbox");
            config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.url", upstream.url());
            config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.provider", "webhook");
            config.put(GatewayConfig.UPSTREAM_PREFIX + "sandbox.operations",
                    SandboxMcpServer.READ_TOOL + ":get_notes," + SandboxMcpServer.SEND_TOOL + ":post_update");
            GatewayConfig gatewayConfig = GatewayConfig.from(config);
            McpImport.run(gatewayConfig, "sandbox", Set.of(SandboxMcpServer.READ_TOOL, SandboxMcpServer.SEND_TOOL));
            McpGateway gateway = McpGateway.start(gatewayConfig);
            context.hint("MCP gateway: http://127.0.0.1:" + gateway.port() + McpGateway.ENDPOINT
                    + "   headers: Authorization: Bearer " + token + " (in " + tokenFile
                    + "), X-ActionGate-Task-Id: T-1   tools: " + SandboxMcpServer.READ_TOOL + " (trusted read), "
                    + SandboxMcpServer.SEND_TOOL + " (needs approval)");
            return () -> {
                try {
                    gateway.close();
                } finally {
                    upstream.close();
                }
            };
        } catch (Exception | Error e) {
            upstream.close();
            throw e;
        }
    }
}
