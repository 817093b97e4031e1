package io.actiongate.node;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.ApproverService;
import io.actiongate.config.CommonConfig;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.executor.Executor;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateStores;
import io.actiongate.gate.GateStreams;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.http.GateHttpServer;
import io.actiongate.http.GateMetrics;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.http.KafkaMetricsBridge;
import io.actiongate.http.ProposalApi;
import io.actiongate.http.ProposalApiConfig;
import io.actiongate.http.StreamsActionStateQuery;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpGateway;
import io.actiongate.reconciler.Reconciler;
import io.actiongate.reconciler.ReconcilerConfig;

/**
 * One actiongate process: the roles it was asked to run (gate, executor, reconciler, approver) and the HTTP surface
 * ({@code /v1/actions}, {@code /metrics}, {@code /health/*}) that every process serves. {@code actiongate run} and
 * {@code actiongate dev} both start one. Closing stops the roles in reverse order of start.
 */
public final class ActiongateNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ActiongateNode.class);

    private final Set<Role> roles;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private final NodeConfig nodeConfig;
    private GateHttpServer http;
    private GateStreams gate;
    private Executor executor;
    private Reconciler reconciler;
    private ApproverService approver;
    private ConnectorRegistry connectors;
    private McpGateway mcpGateway;
    private ProposalApi proposals;

    private ActiongateNode(Set<Role> roles, NodeConfig nodeConfig) {
        this.roles = EnumSet.copyOf(roles);
        this.nodeConfig = nodeConfig;
    }

    /** Starts {@code roles} from the flat configuration; a failure closes whatever had started and rethrows. */
    public static ActiongateNode start(Map<String, String> config, Set<Role> roles) {
        if (roles.isEmpty()) {
            throw new IllegalArgumentException("no role to run");
        }
        ActiongateNode node = new ActiongateNode(roles, new NodeConfig(config));
        try {
            // every Kafka client of every role reports its metrics to /metrics
            node.startAll(KafkaMetricsBridge.withReporter(config,
                    KafkaMetricsBridge.clientKey(CommonConfig.KAFKA_CLIENT_PREFIX)));
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    private void startAll(Map<String, String> config) {
        DeferredActionStateQuery actions = new DeferredActionStateQuery();
        GateMetrics metrics = new GateMetrics(registry);
        JvmMetrics.builder().register(registry);
        KafkaMetricsBridge.register(registry);
        GateHttpServer server = new GateHttpServer(HttpServerConfig.from(config), actions, registry, this::ready)
                .withWaitLimits(new ProposalApiConfig(config));
        if (roles.contains(Role.GATE)) {
            // POST /v1/proposals: tool hosts of any language propose over HTTP (off until its tokens file is set)
            Optional<ProposalApi> api = ProposalApi.start(config);
            if (api.isPresent()) {
                proposals = api.get();
                started.push(proposals);
                server.withProposals(proposals);
            }
        }
        http = server.start();
        started.push(http);

        // the executor and reconciler call providers, with credentials; the gate only classifies (below)
        if (roles.contains(Role.EXECUTOR) || roles.contains(Role.RECONCILER)) {
            connectors = ConnectorRegistry.load(config);
            started.push(connectors);
        }
        AttachmentStorage storage = new AttachmentStorage(config);
        started.push(storage);
        if (roles.contains(Role.GATE)) {
            Map<String, String> gateConfig = new HashMap<>(config);
            HostInfo self = new HostInfo(nodeConfig.advertisedHost(), http.port());
            gateConfig.put(GateConfig.STREAMS_PREFIX + StreamsConfig.APPLICATION_SERVER_CONFIG,
                    self.host() + ":" + self.port());
            // the gate classifies with the providers' own logic (docs/contract.md section 4, "Classification"):
            // classifier-only connectors, built from the same settings without resolving any credential, so a gate
            // pod holds no provider secret
            gate = GateStreams.create(new GateConfig(gateConfig),
                    OperationClassifiers.of(ConnectorRegistry.classifiers(config)),
                    new ReceiptMetrics(metrics), storage.admissionCheck());
            GateStreams streams = gate;
            metrics.consumerLag("gate", () -> streams.streams().metrics());
            started.push(() -> gate.close(Duration.ofMillis(nodeConfig.shutdownTimeoutMs())));
            // the store's values are the gate's internal model: ActionViews reads them through the gate's public
            // read model (io.actiongate.gate.ActionView), so the node names no gate.internal type
            actions.set(new StreamsActionStateQuery<Object>(gate.streams(), GateStores.ACTIONS, self,
                    ActionViews::ofStoreValue));
            gate.start();
        }
        if (roles.contains(Role.EXECUTOR)) {
            ExecutorConfig executorConfig = new ExecutorConfig(config);
            executor = Executor.startWith(executorConfig, connectors, registry,
                    storage.executorCheck(executorConfig, registry));
            started.push(executor);
            metrics.consumerLag("executor", executor::clientMetrics);
        }
        if (roles.contains(Role.RECONCILER)) {
            reconciler = Reconciler.start(new ReconcilerConfig(config), connectors, registry);
            started.push(reconciler);
            metrics.consumerLag("reconciler", reconciler::clientMetrics);
        }
        if (roles.contains(Role.APPROVER)) {
            approver = ApproverService.start(config);
            started.push(approver);
            if (proposals != null) {
                proposals.reviewOn(approver.publicUrl());
            }
        }
        if (roles.contains(Role.MCP_GATEWAY)) {
            mcpGateway = McpGateway.start(GatewayConfig.from(config));
            started.push(mcpGateway);
        }
        LOG.info("actiongate node running roles {}; HTTP on port {}", roles, http.port());
    }

    /** Ready when every role runs: the gate's Streams are RUNNING and the consumer loops are alive. */
    public boolean ready() {
        if (gate != null && gate.streams().state() != KafkaStreams.State.RUNNING) {
            return false;
        }
        if (executor != null && !executor.isRunning()) {
            return false;
        }
        if (approver != null && !approver.ready()) {
            return false;
        }
        return reconciler == null || reconciler.isRunning();
    }

    /** Why a role stopped on its own, if one did: the process should exit then. */
    public Optional<String> failure() {
        if (gate != null) {
            KafkaStreams.State state = gate.streams().state();
            if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.NOT_RUNNING
                    || gate.fatalFailure().isPresent()) {
                return Optional.of("the gate's Kafka Streams stopped (state " + state + ")"
                        + gate.fatalFailure().map(cause -> ": " + cause).orElse(""));
            }
        }
        if (executor != null && executor.failure() != null) {
            return Optional.of("the executor stopped: " + KafkaFailures.describe(executor.failure()));
        }
        if (reconciler != null && reconciler.failure() != null) {
            return Optional.of("the reconciler stopped: " + KafkaFailures.describe(reconciler.failure()));
        }
        if (approver != null && approver.failure() != null) {
            return Optional.of("the approval service stopped: " + KafkaFailures.describe(approver.failure()));
        }
        return Optional.empty();
    }

    public Set<Role> roles() {
        return EnumSet.copyOf(roles);
    }

    public int httpPort() {
        return http.port();
    }

    /** The MCP gateway, when this node runs it. */
    public Optional<McpGateway> mcpGateway() {
        return Optional.ofNullable(mcpGateway);
    }

    /** The gate, when this node runs it. */
    public Optional<GateStreams> gate() {
        return Optional.ofNullable(gate);
    }

    /** The approval service, when this node runs it. */
    public Optional<ApproverService> approver() {
        return Optional.ofNullable(approver);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    @Override
    public synchronized void close() {
        while (!started.isEmpty()) {
            AutoCloseable next = started.pop();
            try {
                next.close();
            } catch (Exception e) {
                LOG.warn("error while stopping: {}", e.toString());
            }
        }
    }
}
