package io.actiongate.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.DispatcherType;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.client.ActionGateClient;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.topics.Topics;
import io.actiongate.runtime.BearerTokens;
import io.actiongate.runtime.HttpLimits;
import io.actiongate.runtime.HttpSurface;
import io.actiongate.runtime.Shutdown;

/**
 * Role {@code mcp-gateway}: an MCP server over Streamable HTTP at {@code /mcp} (the runtime's Jetty,
 * {@link HttpSurface}) that fronts the configured upstream MCP servers. Tool hosts authenticate with a bearer token:
 * a static one (the runtime's token files, re-read on change) or an OAuth access token ({@link AccessTokens}, with
 * the Protected Resource Metadata of {@link ProtectedResource}); see {@link GatewayTools} for what a call does. The limits for slow
 * clients are the runtime's, under {@value #LIMITS_PREFIX}; every open MCP request (a tool call waiting for its
 * answer, a stream) takes a turn. Closing stops the HTTP server, the upstream clients, the policy view and the
 * actiongate client.
 */
public final class McpGateway implements AutoCloseable {

    public static final String ENDPOINT = "/mcp";
    /** The prefix of the runtime's HTTP limits for the gateway ({@code mcp.gateway.http.threads.max}, ...). */
    public static final String LIMITS_PREFIX = "mcp.gateway.http.";
    private static final Logger LOG = LoggerFactory.getLogger(McpGateway.class);

    private final Shutdown started = new Shutdown("the MCP gateway");
    private int port;
    private GatewayMetrics metrics;
    private GatewayHealth health;
    private PolicyTopicReader policyView;
    private java.net.URI resourceUri;

    private McpGateway() {
    }

    /** With the runtime's default HTTP limits. */
    public static McpGateway start(GatewayConfig config) {
        return start(config, HttpLimits.DEFAULTS);
    }

    /** @param limits the HTTP limits ({@code HttpLimits.from(flat, LIMITS_PREFIX)}) */
    public static McpGateway start(GatewayConfig config, HttpLimits limits) {
        McpGateway gateway = new McpGateway();
        try {
            gateway.startAll(config, limits);
            return gateway;
        } catch (Exception e) {
            gateway.close();
            throw new IllegalStateException("the MCP gateway did not start: " + KafkaFailures.describe(e), e);
        }
    }

    private void startAll(GatewayConfig config, HttpLimits limits) throws Exception {
        if (config.approvalMaxWaiting() > limits.maxThreads() / 2) {
            throw new IllegalArgumentException(GatewayConfig.APPROVAL_MAX_WAITING_CONFIG + " is "
                    + config.approvalMaxWaiting() + ": at most half of " + LIMITS_PREFIX + HttpLimits.THREADS_MAX + " ("
                    + limits.maxThreads() + "), each waiting call holds one of them");
        }
        BearerTokens<HostIdentity> tokens = config.tokensFile() == null ? null
                : HostTokens.load(GatewayConfig.TOKENS_FILE_CONFIG, config.tokensFile());
        int bindPort = config.port();
        OAuthSettings oauth = config.oauth();
        if (oauth != null && oauth.resource() == null) {
            // the resource URI names the port clients use: pick the free port now, before the URI is derived
            bindPort = bindPort == 0 ? freePort(config.host()) : bindPort;
            oauth = oauth.withResource(OAuthSettings.derivedResource(config.host(), bindPort));
        }
        AccessTokens accessTokens = oauth == null ? null : new AccessTokens(oauth, AccessTokens.jwksUrl(oauth));
        ProtectedResource resource = oauth == null ? null : new ProtectedResource(oauth);
        ActionGateClient client = ActionGateClient.builder().kafkaProperties(config.kafkaClient())
                .bootstrapServers(config.bootstrapServers()).topicPrefix(config.topicPrefix()).build();
        started.push(client);
        PolicyTopicReader policy = new PolicyTopicReader(policyConsumer(config), Topics.POLICY.name(config.topicPrefix()),
                config.taskDefaultOrg()).start(Duration.ofSeconds(60), "mcp-gateway-policy");
        started.push(policy);
        policyView = policy;
        List<Upstream> upstreams = new ArrayList<>();
        for (GatewayConfig.UpstreamConfig u : config.upstreams()) {
            Upstream upstream = new Upstream(u, Duration.ofSeconds(30));
            started.push(upstream);
            upstreams.add(upstream.connect());
        }
        metrics = new GatewayMetrics(new PrometheusRegistry());
        ClientApproval approvals = new ClientApproval(client, config.approvalWait(), config.approvalProgress(),
                config.approvalMaxWaiting());
        GatewayTools tools = new GatewayTools(client, policy, config.reviewUrl(), config.answerTimeout(), metrics,
                config.sessionTask(), approvals);
        health = new GatewayHealth(policy, upstreams, metrics);

        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider
                .builder()
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .mcpEndpoint(ENDPOINT)
                .contextExtractor(request -> {
                    Map<String, Object> context = new HashMap<>();
                    Object identity = request.getAttribute(BearerAuthFilter.IDENTITY_ATTRIBUTE);
                    if (identity != null) {
                        context.put(GatewayTools.CONTEXT_IDENTITY, identity);
                    }
                    Object task = request.getAttribute(BearerAuthFilter.TASK_ATTRIBUTE);
                    if (task != null) {
                        context.put(GatewayTools.CONTEXT_TASK, task);
                    }
                    Object tokenTask = request.getAttribute(BearerAuthFilter.TOKEN_TASK_ATTRIBUTE);
                    if (tokenTask != null) {
                        context.put(GatewayTools.CONTEXT_TOKEN_TASK, tokenTask);
                    }
                    return McpTransportContext.create(context);
                })
                .build();
        List<McpServerFeatures.SyncToolSpecification> specifications = tools.specifications(upstreams);
        McpSyncServer server = McpServer.sync(transport)
                .serverInfo("actiongate-mcp-gateway", "1")
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                // a client asked to open the review page may take this long to answer (a person reads the prompt)
                .requestTimeout(config.approvalWait())
                .tools(specifications)
                .build();
        started.push(server::closeGracefully);
        approvals.completion((session, elicitation) -> server.sendElicitationComplete(session,
                new McpSchema.ElicitationCompleteNotification(elicitation)));

        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        FilterHolder errors = new FilterHolder(new JsonRpcErrorFilter());
        errors.setAsyncSupported(true);
        context.addFilter(errors, ENDPOINT, EnumSet.of(DispatcherType.REQUEST));
        FilterHolder auth = new FilterHolder(new BearerAuthFilter(tokens, accessTokens, resource,
                new SessionOwners(SessionOwners.DEFAULT_CAPACITY)));
        auth.setAsyncSupported(true);
        context.addFilter(auth, ENDPOINT, EnumSet.of(DispatcherType.REQUEST));
        // a body that is not JSON and a call of an unknown tool are answered without their input (the SDK's own
        // answer and log repeat it)
        FilterHolder unknownTools = new FilterHolder(new JsonRpcRequestGuard(specifications.stream()
                .map(spec -> spec.tool().name()).collect(java.util.stream.Collectors.toSet())));
        unknownTools.setAsyncSupported(true);
        context.addFilter(unknownTools, ENDPOINT, EnumSet.of(DispatcherType.REQUEST));
        ServletHolder mcp = new ServletHolder(transport);
        mcp.setAsyncSupported(true);
        context.addServlet(mcp, ENDPOINT);
        context.addServlet(new ServletHolder(health), GatewayHealth.METRICS);
        if (resource != null) {
            // RFC 9728: the plain well-known path and the one suffixed with the resource's path, without a token
            ServletHolder metadata = new ServletHolder(resource);
            context.addServlet(metadata, ProtectedResource.WELL_KNOWN);
            if (!resource.metadataPath().equals(ProtectedResource.WELL_KNOWN)) {
                context.addServlet(metadata, resource.metadataPath());
            }
        }
        // every error body is a JSON-RPC error object: never a stack trace, a class name or an HTML page
        context.setErrorHandler(new JsonRpcErrorHandler());
        GatewayHealth probes = health;
        HttpSurface http = started.push(HttpSurface.builder("mcp-gateway")
                .bind(config.host(), bindPort)
                .limits(limits)
                .probe(GatewayHealth.LIVE, probes::live)
                .probe(GatewayHealth.READY, probes::ready)
                .app(context)
                .errorHandler(new JsonRpcErrorHandler())
                .build()
                .start());
        port = http.port();
        resourceUri = oauth == null ? null : oauth.resource();
        LOG.info("MCP gateway on port {} fronting {} upstream(s), {} tool(s){}", port, upstreams.size(),
                upstreams.stream().mapToInt(u -> u.tools().size()).sum(), oauth == null ? ""
                        : "; OAuth resource " + oauth.resource() + " of issuer " + oauth.issuer());
    }

    private static KafkaConsumer<String, byte[]> policyConsumer(GatewayConfig config) {
        return KafkaClients.of(config.bootstrapServers(), config.kafkaClient())
                .consumer("actiongate-mcp-gateway-policy").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer());
    }

    private static int freePort(String host) throws java.io.IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(host))) {
            return socket.getLocalPort();
        }
    }

    /** The canonical resource URI access tokens must name ({@code mcp.gateway.oauth.resource}), or null. */
    public java.net.URI resource() {
        return resourceUri;
    }

    /** The registry {@code /metrics} serves. */
    public PrometheusRegistry metrics() {
        return metrics.registry();
    }

    /** The HTTP port (the bound one when configured as 0). */
    public int port() {
        return port;
    }

    /** Ready while the policy view follows the policy topic and every upstream answers (as {@code /health/ready}). */
    public boolean ready() {
        return health != null && health.ready().status() == 200;
    }

    /** Why the gateway stopped on its own: its policy view stopped following the policy topic; else null. */
    public String failure() {
        return policyView != null && !policyView.following() ? "the MCP gateway's policy view stopped" : null;
    }

    @Override
    public void close() {
        started.close();
    }
}
