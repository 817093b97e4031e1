package io.actiongate.mcp;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.DispatcherType;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.client.ActionGateClient;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.topics.Topics;

/**
 * Role {@code mcp-gateway}: an MCP server over Streamable HTTP at {@code /mcp} (embedded Jetty) that fronts the
 * configured upstream MCP servers. Tool hosts authenticate with a bearer token; see {@link GatewayTools} for what a
 * call does. Closing stops the HTTP server, the upstream clients, the policy view and the actiongate client.
 */
public final class McpGateway implements AutoCloseable {

    public static final String ENDPOINT = "/mcp";
    private static final Logger LOG = LoggerFactory.getLogger(McpGateway.class);

    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private Server jetty;
    private int port;
    private GatewayMetrics metrics;

    private McpGateway() {
    }

    public static McpGateway start(GatewayConfig config) {
        McpGateway gateway = new McpGateway();
        try {
            gateway.startAll(config);
            return gateway;
        } catch (Exception e) {
            gateway.close();
            throw new IllegalStateException("the MCP gateway did not start: " + KafkaFailures.describe(e), e);
        }
    }

    private void startAll(GatewayConfig config) throws Exception {
        BearerTokens tokens = BearerTokens.load(config.tokensFile());
        ActionGateClient client = ActionGateClient.builder().kafkaProperties(config.kafkaClient())
                .bootstrapServers(config.bootstrapServers()).topicPrefix(config.topicPrefix()).build();
        started.push(client);
        PolicyTopicReader policy = new PolicyTopicReader(policyConsumer(config), Topics.POLICY.name(config.topicPrefix()),
                config.taskDefaultOrg()).start(Duration.ofSeconds(60), "mcp-gateway-policy");
        started.push(policy);
        List<Upstream> upstreams = new ArrayList<>();
        for (GatewayConfig.UpstreamConfig u : config.upstreams()) {
            Upstream upstream = new Upstream(u, Duration.ofSeconds(30));
            started.push(upstream);
            upstreams.add(upstream.connect());
        }
        metrics = new GatewayMetrics(new PrometheusRegistry());
        GatewayTools tools = new GatewayTools(client, policy, config.reviewUrl(), config.answerTimeout(), metrics);
        GatewayHealth health = new GatewayHealth(policy, upstreams, metrics);

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
                    return McpTransportContext.create(context);
                })
                .build();
        McpSyncServer server = McpServer.sync(transport)
                .serverInfo("actiongate-mcp-gateway", "1")
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(tools.specifications(upstreams))
                .build();
        started.push(server::closeGracefully);

        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost(config.host());
        connector.setPort(config.port());
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        FilterHolder errors = new FilterHolder(new JsonRpcErrorFilter());
        errors.setAsyncSupported(true);
        context.addFilter(errors, ENDPOINT, EnumSet.of(DispatcherType.REQUEST));
        FilterHolder auth = new FilterHolder(new BearerAuthFilter(tokens));
        auth.setAsyncSupported(true);
        context.addFilter(auth, ENDPOINT, EnumSet.of(DispatcherType.REQUEST));
        ServletHolder mcp = new ServletHolder(transport);
        mcp.setAsyncSupported(true);
        context.addServlet(mcp, ENDPOINT);
        context.addServlet(new ServletHolder(health), GatewayHealth.LIVE);
        context.addServlet(new ServletHolder(health), GatewayHealth.READY);
        context.addServlet(new ServletHolder(health), GatewayHealth.METRICS);
        // every error body is a JSON-RPC error object: never a stack trace, a class name or an HTML page
        context.setErrorHandler(new JsonRpcErrorHandler());
        jetty.setErrorHandler(new JsonRpcErrorHandler());
        jetty.setHandler(context);
        jetty.start();
        started.push(jetty::stop);
        port = connector.getLocalPort();
        LOG.info("MCP gateway on port {} fronting {} upstream(s), {} tool(s)", port, upstreams.size(),
                upstreams.stream().mapToInt(u -> u.tools().size()).sum());
    }

    private static KafkaConsumer<String, byte[]> policyConsumer(GatewayConfig config) {
        Map<String, Object> props = new HashMap<>(config.kafkaClient());
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "actiongate-mcp-gateway-policy");
        return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /** The registry {@code /metrics} serves. */
    public PrometheusRegistry metrics() {
        return metrics.registry();
    }

    /** The HTTP port (the bound one when configured as 0). */
    public int port() {
        return port;
    }

    @Override
    public synchronized void close() {
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                LOG.warn("error while stopping: {}", e.toString());
            }
        }
    }
}
