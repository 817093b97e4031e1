package io.actiongate.dev;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.cli.commands.PolicyJson;
import io.actiongate.policy.PolicyKey;
import io.actiongate.policy.WrittenPolicy;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpGateway;
import io.actiongate.mcp.McpImport;
import io.actiongate.sandbox.SandboxMcpServer;

/**
 * The MCP gateway of {@code actiongate dev}: in front of the sandbox MCP server ({@code notes_lookup}, a trusted read
 * answered by the server; {@code notes_post}, a write that runs on the server itself once approved, through the
 * executor's {@code mcp} connector), and of any upstream the user names with {@code mcp.gateway.upstreams} and
 * {@code mcp.gateway.upstream.NAME.*} in {@code --config} (an upstream named {@code sandbox} is dev's own). Tools are
 * imported as an operator would ({@code mcp import}): the sandbox's read and write tools, and for a user's upstream the
 * tools listed in {@code mcp.gateway.upstream.NAME.trust} (default: every tool it offers), granted to the demo profile.
 * The host token is generated once per data directory. {@code mcp.gateway.port} (default 8090, or a free port when
 * {@code http.port=0}) and {@code mcp.gateway.review.url} of the user's configuration win. With dev's identity
 * provider running, the gateway is also an OAuth resource server of that provider (scope
 * {@value DevMcpAuthorization#MCP_SCOPE}), so a client given only the gateway's URL signs in there and calls under
 * the demo org's session task, {@code mcp-demo}; {@code mcp.gateway.oauth.*} of the user's configuration win.
 */
final class DevMcpGateway implements DevComponent {

    static final String HOST_PRINCIPAL = "assistant-host";
    static final String SANDBOX = "sandbox";
    /** dev only: which tools of a user's upstream to import (comma list; default all it offers). */
    static final String TRUST_SUFFIX = ".trust";

    private final Supplier<String> reviewUrl;
    private final Supplier<SandboxMcpServer> sandbox;
    private final Supplier<DevIdentityProvider> identityProvider;
    private volatile McpGateway gateway;

    /**
     * @param reviewUrl        the review page URL pattern, asked at start (after the approval service is up)
     * @param sandbox          dev's sandbox MCP server, asked at start (the stack started it)
     * @param identityProvider dev's identity provider, asked at start; null when another one is configured
     */
    DevMcpGateway(Supplier<String> reviewUrl, Supplier<SandboxMcpServer> sandbox,
            Supplier<DevIdentityProvider> identityProvider) {
        this.reviewUrl = reviewUrl;
        this.sandbox = sandbox;
        this.identityProvider = identityProvider;
    }

    @Override
    public String name() {
        return "MCP gateway (sandbox MCP server)";
    }

    /** The upstream names of the user's configuration, or dev's sandbox alone. */
    static List<String> upstreams(Map<String, String> userConfig) {
        List<String> names = new ArrayList<>();
        for (String n : userConfig.getOrDefault(GatewayConfig.UPSTREAMS_CONFIG, SANDBOX).split(",")) {
            if (!n.isBlank()) {
                names.add(n.strip());
            }
        }
        return names;
    }

    /**
     * The {@code connectors.mcp.*} settings that let dev's executor run the tools of every {@code mcp} upstream of the
     * gateway (the sandbox, with its status tool, and the user's), and the approval service's sender line for
     * provider {@code mcp} (without one its review page cannot decide an MCP call); the user's own keys win.
     */
    static Map<String, String> connectorDefaults(Map<String, String> userConfig, String sandboxUrl) {
        Map<String, String> d = new LinkedHashMap<>();
        List<String> mcp = new ArrayList<>();
        for (String name : upstreams(userConfig)) {
            String p = GatewayConfig.UPSTREAM_PREFIX + name + ".";
            if (!GatewayConfig.MCP_PROVIDER.equals(userConfig.getOrDefault(p + "provider", GatewayConfig.MCP_PROVIDER))) {
                continue;
            }
            mcp.add(name);
            String c = "connectors.mcp.upstream." + name + ".";
            if (SANDBOX.equals(name) && !userConfig.containsKey(p + "url")) {
                d.put(c + "url", sandboxUrl);
                d.put(c + "status-tool", SandboxMcpServer.STATUS_TOOL);
            } else if (userConfig.containsKey(p + "url")) {
                d.put(c + "url", userConfig.get(p + "url"));
                for (String key : List.of("endpoint", "credential")) {
                    if (userConfig.containsKey(p + key)) {
                        d.put(c + key, userConfig.get(p + key));
                    }
                }
            }
        }
        if (!mcp.isEmpty()) {
            d.put("connectors.mcp.upstreams", String.join(",", mcp));
            d.put(ApproverConfig.SENDER_PREFIX + GatewayConfig.MCP_PROVIDER, "the MCP server "
                    + String.join(", ", mcp.stream().map(n -> n + " (" + d.getOrDefault("connectors.mcp.upstream." + n
                    + ".url", "?") + ")").toList()) + ", as the dev MCP gateway's upstream");
        }
        return d;
    }

    @Override
    public AutoCloseable start(DevContext context) throws Exception {
        Path secrets = OwnerOnlyFiles.directory(context.workDir().resolve("secrets"));
        Path tokenFile = secrets.resolve("mcp-host-token");
        String token = OwnerOnlyFiles.secret(tokenFile);
        Path hosts = secrets.resolve("mcp-hosts");
        // the token file's secret in a second file: owner-only as well
        OwnerOnlyFiles.writeString(hosts, token + " " + HOST_PRINCIPAL + " " + DemoPolicy.ORG + " "
                + DemoPolicy.PROFILE + "\n");

        Map<String, String> user = context.config();
        Map<String, String> config = new HashMap<>();
        user.forEach((k, v) -> {
            if (k.startsWith(GatewayConfig.UPSTREAM_PREFIX) && !k.endsWith(TRUST_SUFFIX)
                    || k.startsWith(GatewayConfig.OAUTH_PREFIX) || k.startsWith("mcp.gateway.approval.")
                    || k.equals(GatewayConfig.SESSION_TASK_CONFIG)) {
                config.put(k, v);
            }
        });
        DevIdentityProvider provider = identityProvider.get();
        if (provider != null && !config.containsKey(GatewayConfig.OAUTH_ISSUER_CONFIG)) {
            // MCP clients sign in at dev's provider; the resource URI is the gateway's own loopback URL
            config.put(GatewayConfig.OAUTH_ISSUER_CONFIG, provider.issuer().toString());
            config.putIfAbsent(GatewayConfig.OAUTH_SCOPES_CONFIG, DevMcpAuthorization.MCP_SCOPE);
        }
        config.put(GatewayConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers());
        config.put(GatewayConfig.TOPIC_PREFIX_CONFIG, context.topicPrefix());
        config.put(GatewayConfig.HOST_CONFIG, "127.0.0.1");
        // 8090 unless configured; with http.port=0 (tests, several dev runs) a free port as well
        config.put(GatewayConfig.PORT_CONFIG, user.getOrDefault(GatewayConfig.PORT_CONFIG,
                "0".equals(user.get("http.port")) ? "0" : "8090"));
        config.put(GatewayConfig.TOKENS_FILE_CONFIG, hosts.toString());
        config.put(GatewayConfig.REVIEW_URL_CONFIG, user.getOrDefault(GatewayConfig.REVIEW_URL_CONFIG,
                reviewUrl.get()));
        List<String> names = upstreams(user);
        config.put(GatewayConfig.UPSTREAMS_CONFIG, String.join(",", names));
        if (names.contains(SANDBOX)) {
            config.putIfAbsent(GatewayConfig.UPSTREAM_PREFIX + SANDBOX + ".url", sandbox.get().url());
        }
        GatewayConfig gatewayConfig = GatewayConfig.from(config);
        Set<String> granted = new LinkedHashSet<>();
        List<String> described = new ArrayList<>();
        for (String name : names) {
            Set<String> trusted;
            if (SANDBOX.equals(name) && !user.containsKey(GatewayConfig.UPSTREAM_PREFIX + SANDBOX + ".url")) {
                trusted = Set.of(SandboxMcpServer.READ_TOOL, SandboxMcpServer.SEND_TOOL);
            } else {
                String list = user.get(GatewayConfig.UPSTREAM_PREFIX + name + TRUST_SUFFIX);
                trusted = list == null || list.isBlank() ? McpImport.offered(gatewayConfig, name)
                        : Set.of(list.strip().split("\\s*,\\s*"));
            }
            for (ToolDescriptor d : McpImport.run(gatewayConfig, name, trusted)) {
                granted.add(WrittenPolicy.toolName(d));
                described.add(WrittenPolicy.toolName(d) + " (" + (WrittenPolicy.approvalNone(d) ? "trusted read"
                        : "needs approval") + ")");
            }
        }
        grant(context, granted);
        // the demo org's session task: what calls of a client that names no task run under
        if (!gatewayConfig.sessionTask().isBlank()) {
            DevStack.publish(context, List.of(DemoPolicy.activeTask(gatewayConfig.sessionTask()
                    .replace("{org_id}", DemoPolicy.ORG))));
        }
        McpGateway gateway = McpGateway.start(gatewayConfig);
        this.gateway = gateway;
        context.hint("MCP gateway: http://127.0.0.1:" + gateway.port() + McpGateway.ENDPOINT
                + "   headers: Authorization: Bearer " + token + " (in " + tokenFile
                + "), X-ActionGate-Task-Id: T-1   tools: " + String.join(", ", described));
        if (gateway.resource() != null) {
            boolean devProvider = provider != null && provider.issuer().equals(gatewayConfig.oauth().issuer());
            context.hint("MCP clients with OAuth: give them only " + gateway.resource() + " (they sign in at "
                    + gatewayConfig.oauth().issuer() + (devProvider ? " with any username, org '" + DemoPolicy.ORG
                    + "'" : "") + "; calls without a task header run under task '"
                    + gatewayConfig.sessionTask().replace("{org_id}", DemoPolicy.ORG) + "'; a client that can open "
                    + "URLs is asked to open the review page)");
        }
        return gateway;
    }

    @Override
    public boolean ready() {
        McpGateway g = gateway;
        return g != null && g.ready();
    }

    /** The demo profile's grant, widened by the imported tools (the demo policy grants the sandbox's already). */
    private static void grant(DevContext context, Set<String> tools) throws Exception {
        for (PolicyJson.Entry entry : DemoPolicy.entries()) {
            Optional<PolicyRecord> widened = WrittenPolicy.widenedGrant(entry.record(), DemoPolicy.PROFILE, tools);
            if (widened.isPresent()) {
                if (widened.get() != entry.record()) {
                    DevStack.publish(context, List.of(new PolicyJson.Entry(PolicyKey.parse(entry.key().toString()),
                            widened.get())));
                }
                return;
            }
        }
    }
}
