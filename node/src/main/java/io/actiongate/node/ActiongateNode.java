package io.actiongate.node;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpGateway;
import io.actiongate.notifier.NotifierService;
import io.actiongate.reconciler.Reconciler;
import io.actiongate.reconciler.ReconcilerConfig;
import io.actiongate.runtime.HttpLimits;
import io.actiongate.runtime.Shutdown;

/**
 * One actiongate process: the roles it was asked to run (gate, executor, reconciler, approver, notifier, mcp-gateway) and the
 * HTTP surface ({@code /v1/actions}, {@code /metrics}, {@code /health/*}) that every process serves. {@code actiongate
 * run} and {@code actiongate dev} both start one. Each role is an {@link io.actiongate.runtime.Role}: started in the
 * order of {@link Role}, asked for readiness ({@code /health/ready}) and failure (the process exits), stopped in
 * reverse order of start by one {@link Shutdown}.
 */
public final class ActiongateNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ActiongateNode.class);

    private final Set<Role> roles;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Shutdown started = new Shutdown("the actiongate node");
    private final List<io.actiongate.runtime.Role> running = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final NodeConfig nodeConfig;
    private GateHttpServer http;
    private GateStreams gate;
    private ApproverService approver;
    private ConnectorRegistry connectors;
    private McpGateway mcpGateway;
    private NotifierService notifier;
    private ProposalApi proposals;
    private AttachmentStorage storage;
    private GateMetrics metrics;
    private DeferredActionStateQuery actions;

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

    /** How each role starts, in the order they start (the gate before the approver: review URLs need both). */
    private Map<Role, io.actiongate.runtime.Role.Starter<Map<String, String>>> starters() {
        Map<Role, io.actiongate.runtime.Role.Starter<Map<String, String>>> starters = new LinkedHashMap<>();
        starters.put(Role.GATE, this::startGate);
        starters.put(Role.EXECUTOR, this::startExecutor);
        starters.put(Role.RECONCILER, this::startReconciler);
        starters.put(Role.APPROVER, this::startApprover);
        starters.put(Role.NOTIFIER, this::startNotifier);
        starters.put(Role.MCP_GATEWAY, this::startMcpGateway);
        return starters;
    }

    private void startAll(Map<String, String> config) {
        actions = new DeferredActionStateQuery();
        metrics = new GateMetrics(registry);
        JvmMetrics.builder().register(registry);
        KafkaMetricsBridge.register(registry);
        GateHttpServer server = new GateHttpServer(HttpServerConfig.from(config), actions, registry, this::ready)
                .withWaitLimits(new ProposalApiConfig(config));
        if (roles.contains(Role.GATE)) {
            // POST /v1/proposals: tool hosts of any language propose over HTTP (off until its tokens file is set)
            Optional<ProposalApi> api = ProposalApi.start(config);
            if (api.isPresent()) {
                proposals = started.push(api.get());
                server.withProposals(proposals);
            }
        }
        http = started.push(server.start());

        // the executor and reconciler call providers, with credentials; the gate only classifies (below)
        if (roles.contains(Role.EXECUTOR) || roles.contains(Role.RECONCILER)) {
            connectors = started.push(ConnectorRegistry.load(config));
        }
        storage = started.push(new AttachmentStorage(config));
        starters().forEach((role, starter) -> {
            if (roles.contains(role)) {
                io.actiongate.runtime.Role runningRole;
                try {
                    runningRole = starter.start(config);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("the " + role + " role did not start: "
                            + KafkaFailures.describe(e), e);
                }
                started.push(runningRole);
                running.add(runningRole);
            }
        });
        LOG.info("actiongate node running roles {}; HTTP on port {}", roles, http.port());
    }

    private io.actiongate.runtime.Role startGate(Map<String, String> config) {
        Map<String, String> gateConfig = new HashMap<>(config);
        HostInfo self = new HostInfo(nodeConfig.advertisedHost(), http.port());
        gateConfig.put(GateConfig.STREAMS_PREFIX + StreamsConfig.APPLICATION_SERVER_CONFIG,
                self.host() + ":" + self.port());
        // the gate classifies with the providers' own logic (docs/contract.md section 4, "Classification"):
        // classifier-only connectors, built from the same settings without resolving any credential, so a gate
        // pod holds no provider secret
        GateStreams streams = GateStreams.create(new GateConfig(gateConfig),
                OperationClassifiers.of(ConnectorRegistry.classifiers(config)),
                new ReceiptMetrics(metrics), storage.admissionCheck());
        gate = streams;
        StreamsActionStateQuery<Object> query = new StreamsActionStateQuery<>(streams.streams(), GateStores.ACTIONS,
                self, ActionViews::ofStoreValue);
        // ready once the actions store answers queries, not at RUNNING alone: a GET must not meet a 503 then
        io.actiongate.runtime.Role role = new NodeRole("gate", query::queryable,
                () -> {
                    KafkaStreams.State state = streams.streams().state();
                    if (streams.newerFormat().isPresent()) {
                        return streams.newerFormat().get().getMessage(); // the one line of a refused downgrade
                    }
                    if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.NOT_RUNNING
                            || streams.fatalFailure().isPresent()) {
                        return "the gate's Kafka Streams stopped (state " + state + ")"
                                + streams.fatalFailure().map(cause -> ": " + cause).orElse("");
                    }
                    return null;
                },
                () -> streams.close(Duration.ofMillis(nodeConfig.shutdownTimeoutMs())));
        metrics.consumerLag("gate", () -> streams.streams().metrics());
        metrics.hangingTransactions(streams::hangingTransactions);
        // the store's values are the gate's internal model: ActionViews reads them through the gate's public read
        // model (io.actiongate.gate.ActionView), so the node names no gate.internal type
        actions.set(query);
        try {
            streams.start();
        } catch (RuntimeException e) {
            role.close();
            throw e;
        }
        return role;
    }

    private io.actiongate.runtime.Role startExecutor(Map<String, String> config) {
        ExecutorConfig executorConfig = new ExecutorConfig(config);
        Executor executor = Executor.startWith(executorConfig, connectors, registry,
                storage.executorCheck(executorConfig, registry));
        metrics.consumerLag("executor", executor::clientMetrics);
        return new NodeRole("executor", executor::isRunning,
                () -> stopped("the executor", executor.failure()),
                executor::close);
    }

    private io.actiongate.runtime.Role startReconciler(Map<String, String> config) {
        Reconciler reconciler = Reconciler.start(new ReconcilerConfig(config), connectors, registry);
        metrics.consumerLag("reconciler", reconciler::clientMetrics);
        return new NodeRole("reconciler", reconciler::isRunning,
                () -> stopped("the reconciler", reconciler.failure()),
                reconciler::close);
    }

    private io.actiongate.runtime.Role startApprover(Map<String, String> config) {
        ApproverService service = ApproverService.start(config);
        approver = service;
        if (proposals != null) {
            proposals.reviewOn(service.publicUrl());
        }
        return new NodeRole("approver", service::ready,
                () -> stopped("the approval service", service.failure()),
                service::close);
    }

    private io.actiongate.runtime.Role startNotifier(Map<String, String> config) {
        // an approval service in this process: notices link its review pages (its bound port, with port 0)
        NotifierService service = NotifierService.start(config, registry,
                Optional.ofNullable(approver).map(ApproverService::publicUrl));
        notifier = service;
        return new NodeRole("notifier", service::ready, service::failure, service::close);
    }

    private io.actiongate.runtime.Role startMcpGateway(Map<String, String> config) {
        McpGateway gateway = McpGateway.start(GatewayConfig.from(config),
                HttpLimits.from(config, McpGateway.LIMITS_PREFIX));
        mcpGateway = gateway;
        return new NodeRole("mcp-gateway", gateway::ready, gateway::failure, gateway::close);
    }

    /**
     * Why {@code role} stopped, or null while it runs: the one line of a refused downgrade as it is (it names what,
     * where and who wrote it), anything else prefixed with the role.
     */
    private static String stopped(String role, Throwable failure) {
        if (failure == null) {
            return null;
        }
        UnknownFormatException newer = UnknownFormatException.in(failure);
        return newer != null ? newer.getMessage() : role + " stopped: " + KafkaFailures.describe(failure);
    }

    /**
     * Ready when every role can serve: the gate's Streams RUNNING with its actions store queryable, the consumer
     * loops alive, the approval service's state read, the gateway's upstreams up.
     */
    public boolean ready() {
        for (io.actiongate.runtime.Role role : running) {
            if (!role.ready()) {
                return false;
            }
        }
        return true;
    }

    /** Why a role stopped on its own, if one did: the process should exit then. */
    public Optional<String> failure() {
        for (io.actiongate.runtime.Role role : running) {
            Optional<String> failure = role.failure();
            if (failure.isPresent()) {
                return failure;
            }
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

    /** The notifier, when this node runs it. */
    public Optional<NotifierService> notifier() {
        return Optional.ofNullable(notifier);
    }

    /** The approval service, when this node runs it. */
    public Optional<ApproverService> approver() {
        return Optional.ofNullable(approver);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        started.close();
        running.clear();
    }

    /** One of this node's roles as the runtime sees it: a readiness check, a failure check and how it stops. */
    private record NodeRole(String name, java.util.function.BooleanSupplier isReady,
                            java.util.function.Supplier<String> why, Runnable stop)
            implements io.actiongate.runtime.Role {

        @Override
        public boolean ready() {
            try {
                return isReady.getAsBoolean();
            } catch (RuntimeException e) {
                return false;
            }
        }

        @Override
        public Optional<String> failure() {
            return Optional.ofNullable(why.get());
        }

        @Override
        public void close() {
            stop.run();
        }
    }
}
