package io.actiongate.chaos;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import io.actiongate.chaos.check.CheckResult;
import io.actiongate.chaos.check.Checker;
import io.actiongate.chaos.check.ExpectedAction;
import io.actiongate.chaos.check.ProviderLog;
import io.actiongate.chaos.check.McpLog;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.sandbox.SandboxWebhookProvider.Fault;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * One chaos run: the broker, the gate instances, two executors and the reconciler as child JVMs, the sandbox webhook
 * provider and the load in this JVM, the seeded fault schedule, then the {@link Checker} and the report.
 */
final class ChaosRun {

    /** The settings of one run. */
    record Options(Duration duration, long seed, int gates, int partitions, double actionsPerSecond,
                   Duration faultSpacing, Path results, String childHeap, Duration settleTimeout, boolean cluster,
                   Duration gateClockSkew, boolean measureSaturation, boolean networkNamespaces) {

        /** The saturation is not measured by the run, the nodes share loopback. */
        Options(Duration duration, long seed, int gates, int partitions, double actionsPerSecond,
                Duration faultSpacing, Path results, String childHeap, Duration settleTimeout, boolean cluster,
                Duration gateClockSkew) {
            this(duration, seed, gates, partitions, actionsPerSecond, faultSpacing, results, childHeap, settleTimeout,
                    cluster, gateClockSkew, false, false);
        }

        /** No clock skew. */
        Options(Duration duration, long seed, int gates, int partitions, double actionsPerSecond,
                Duration faultSpacing, Path results, String childHeap, Duration settleTimeout, boolean cluster) {
            this(duration, seed, gates, partitions, actionsPerSecond, faultSpacing, results, childHeap, settleTimeout,
                    cluster, Duration.ZERO);
        }

        /** The single-broker run (CI's). */
        Options(Duration duration, long seed, int gates, int partitions, double actionsPerSecond,
                Duration faultSpacing, Path results, String childHeap, Duration settleTimeout) {
            this(duration, seed, gates, partitions, actionsPerSecond, faultSpacing, results, childHeap, settleTimeout,
                    false);
        }

        /** The same run at another arrival rate (the one measured from the saturation). */
        Options withRate(double rate) {
            return new Options(duration, seed, gates, partitions, rate, faultSpacing, results, childHeap,
                    settleTimeout, cluster, gateClockSkew, measureSaturation, networkNamespaces);
        }

        /** Replicas of every topic: 3 on the cluster, 1 on the single broker. */
        short replicationFactor() {
            return (short) (cluster ? CLUSTER_NODES : 1);
        }
    }

    /**
     * One injected fault and how it went: when it was injected and over (after the load started), its time to recover
     * (from the injection until the first action proposed after it was over settled; -1 when none did), and the
     * longest an action proposed while it lasted took to settle (-1 when none was proposed then, or none settled).
     */
    record FaultRecord(int index, String kind, String description, String target, long injectedAtMs,
                       long restoredAtMs, long recoveredAfterMs, long slowestDuringMs) {

        FaultRecord(int index, String kind, String description, String target, long injectedAtMs,
                    long restoredAtMs, long recoveredAfterMs) {
            this(index, kind, description, target, injectedAtMs, restoredAtMs, recoveredAfterMs, -1);
        }
    }

    static final String PREFIX = "chaos.";
    static final String MCP_EFFECT_LOG = "mcp-effects.jsonl";
    /** The MCP host's arrival rate: gated calls that each wait for an approval and an execution. */
    static final double MCP_CALLS_PER_SECOND = 1;
    static final String SECRET_ENV = "CHAOS_WEBHOOK_SECRET";
    static final long SESSION_TIMEOUT_MS = 6_000;
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration DISPATCH_TIMEOUT = Duration.ofSeconds(5);
    static final Duration HANGING_AFTER = Duration.ofSeconds(60);
    /** A gate killed mid-transaction: its transaction times out (Streams: 10 s), then the broker aborts it (5 s). */
    static final Duration TRANSACTIONS_END_WITHIN = Duration.ofSeconds(45);
    private static final long PROBE_EVERY_MS = 250;
    private static final String NODE_READY = "actiongate running roles";
    /** A child JVM may take minutes to start on a shared, overloaded machine (load average 40 seen). */
    private static final long START_TIMEOUT_MS = 600_000;
    private static final int MAX_GATES = 3;
    static final Duration SATURATION_STEP = Duration.ofSeconds(30);
    static final Duration SATURATION_GRACE = Duration.ofSeconds(10);
    static final double SATURATION_FIRST_RATE = 5;
    static final double SATURATION_MIN_RATE = 0.5;
    static final double SATURATION_MAX_RATE = 640;
    static final int CLUSTER_NODES = 3;
    static final int CLUSTER_MIN_ISR = 2;
    static final String APPLICATION_ID = "chaos-gate";
    /** The gate instance whose wall clock {@code --gate-clock-skew} shifts. */
    static final String SKEWED_GATE = "gate-1";

    private Options options;
    private final PrintWriter out;
    private final List<Child> children = new CopyOnWriteArrayList<>();
    private final List<Child> gates = new CopyOnWriteArrayList<>();
    private final List<Child> executors = new ArrayList<>();
    private final List<FaultRecord> faults = new CopyOnWriteArrayList<>();
    private final String secret;
    private final List<Child> brokers = new ArrayList<>();
    private ClusterNodes cluster;
    private Admin faultAdmin;
    private Child reconciler;
    private SandboxWebhookProvider provider;
    private Path logs;
    private int gateIds;
    private Load load;
    private TxnProbe probe;
    private long loadStartMs;
    private ServiceApprover service;
    private SandboxMcpServer mcpUpstream;
    private Child gateway;
    private int gatewayPort;
    private McpLoad mcpLoad;
    private volatile NetworkNamespaces net;
    /** Rows the run adds to the report's scenario table (the measured saturation). */
    private final Map<String, Object> reportRows = new LinkedHashMap<>();

    ChaosRun(Options options, PrintWriter out) {
        this.options = options;
        this.out = out;
        byte[] s = new byte[16];
        new Random(options.seed() * 31 + 7).nextBytes(s);
        this.secret = "chaos-secret-" + HexFormat.of().formatHex(s);
    }

    /** Runs the scenario; returns the checker's verdict (0 ok, 1 violations). */
    int run() throws Exception {
        Path results = Files.createDirectories(options.results());
        logs = Files.createDirectories(results.resolve("logs"));
        FaultPlan plan = FaultPlan.generate(options.seed(), options.duration(), options.faultSpacing(),
                SESSION_TIMEOUT_MS, options.cluster(), options.cluster() && options.networkNamespaces(), true);
        out.print(plan.describe());
        out.flush();
        Files.writeString(results.resolve("fault-schedule.txt"), plan.describe(), StandardCharsets.UTF_8);
        long started = System.currentTimeMillis();
        // Ctrl-C skips the finally below: never leave a child JVM of this run behind
        Thread orphans = new Thread(this::killChildren, "chaos-kill-children");
        Runtime.getRuntime().addShutdownHook(orphans);
        try {
            provider = SandboxWebhookProvider.start(0, "Bearer " + secret);
            // the MCP gateway's upstream, in this JVM like the webhook provider: every execution in its effect log
            mcpUpstream = SandboxMcpServer.start(0, results.resolve(MCP_EFFECT_LOG));
            String bootstrap;
            if (options.cluster()) {
                if (options.networkNamespaces()) {
                    net = NetworkNamespaces.create(CLUSTER_NODES);
                    out.printf("network: each node in a network namespace of its own (%s-n1..%d) on %s0/24, "
                            + "joined by veth pairs to a bridge in %s; this namespace at %s%n",
                            NetworkNamespaces.PREFIX, CLUSTER_NODES, NetworkNamespaces.SUBNET,
                            NetworkNamespaces.hub(), NetworkNamespaces.CLIENT_ADDRESS);
                }
                cluster = ClusterNodes.create(CLUSTER_NODES, results.resolve("broker-data"), logs, "320m", net);
                brokers.addAll(cluster.nodes());
                children.addAll(brokers);
                bootstrap = cluster.bootstrap();
                cluster.startAll(START_TIMEOUT_MS);
                out.printf("cluster: %d KRaft nodes (broker+controller each) on %s, replication factor %d, "
                        + "min.insync.replicas %d, unclean leader election off%n", CLUSTER_NODES, bootstrap,
                        CLUSTER_NODES, CLUSTER_MIN_ISR);
            } else {
                int port = freePort();
                Child broker = new Child("broker", Child.javaCommand("384m", BrokerMain.class.getName(),
                        List.of(Integer.toString(port), results.resolve("broker-data").toString())), Map.of(), logs,
                        BrokerMain.READY);
                brokers.add(broker);
                children.add(broker);
                bootstrap = "127.0.0.1:" + port;
                startBroker(broker);
            }
            try (Admin admin = KafkaClients.of(bootstrap, Map.of()).admin("chaos-topics").create()) {
                new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(PREFIX, options.partitions(),
                        options.replicationFactor()));
                admin.createTopics(List.of(new NewTopic(PREFIX + TxnProbe.TOPIC_SUFFIX, options.partitions(),
                        options.replicationFactor()))).all().get(60, TimeUnit.SECONDS);
            }
            faultAdmin = KafkaClients.of(bootstrap, Map.of()).admin("chaos-faults")
                    .defaultTo(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
                    .defaultTo(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000).create();
            probe = new TxnProbe(bootstrap, PREFIX, options.seed(), options.partitions());
            load = new Load(bootstrap, PREFIX, "chaos-task-" + options.seed(), options.seed());
            load.publishPolicy();
            if (options.cluster()) {
                service = ServiceApprover.create(results, logs, bootstrap, PREFIX, options.childHeap(),
                        options.seed(), List.of(freePort(), freePort()));
                children.addAll(service.replicas());
            }
            gatewayPort = freePort();
            Path config = writeNodeConfig(results, bootstrap);
            // the operator's `actiongate mcp import --trust notes_post`: its descriptor from the upstream's schema
            io.actiongate.mcp.McpImport.run(io.actiongate.mcp.GatewayConfig.from(nodeConfig(config)),
                    McpLoad.UPSTREAM, java.util.Set.of(McpLoad.TOOL));
            for (int i = 0; i < options.gates(); i++) {
                addGate(config);
            }
            for (int i = 1; i <= 2; i++) {
                executors.add(node("executor-" + i, "executor", config, results, null));
            }
            reconciler = node("reconciler", "reconciler", config, results, null);
            gateway = node("mcp-gateway", "mcp-gateway", config, results, null);
            for (Child child : children) {
                child.start();
            }
            long startDeadline = System.currentTimeMillis() + START_TIMEOUT_MS;
            for (Child child : children) {
                // a node that gives up at start (an approver whose metadata request timed out on an overloaded
                // machine) is started again, as a Deployment would, until the start deadline
                while (!child.awaitReady(Math.max(1, startDeadline - System.currentTimeMillis()))) {
                    if (child.alive() || System.currentTimeMillis() >= startDeadline) {
                        throw new IllegalStateException(child.name() + " did not start; see " + logs);
                    }
                    out.println(child.name() + " exited before it was ready (see its log); starting it again");
                    out.flush();
                    child.start();
                }
            }
            if (service != null) {
                service.startPeople(out);
                load.decideThrough(service);
                out.printf("approval service: %d replicas, %d people deciding through its pages%n",
                        ServiceApprover.REPLICAS, ServiceApprover.PEOPLE);
            }
            load.startWatcher();
            Load.Action first = load.submit(-1, Load.Kind.READ);
            awaitSettled(List.of(first), Duration.ofMinutes(3));
            double rate = options.actionsPerSecond();
            if (options.measureSaturation()) {
                double saturation = measureSaturation();
                if (Double.isNaN(rate)) {
                    rate = Math.max(1, saturation * ChaosCommand.SATURATION_SHARE);
                }
                out.println(ChaosCommand.describeRate(rate, saturation) + " (saturation measured by this run, "
                        + "faults off, on this machine)");
                options = options.withRate(rate);
                reportRows.put("measured saturation (this run, same topology, faults off)",
                        String.format(java.util.Locale.ROOT, "%.1f actions/s", saturation));
                reportRows.put("arrival rate during the storm", String.format(java.util.Locale.ROOT,
                        "%.1f actions/s (%.0f %% of the measured saturation)", rate, 100 * rate / saturation));
            }
            out.printf("all %d processes up after %d s; load for %d s at %.1f actions/s%n", children.size(),
                    (System.currentTimeMillis() - started) / 1000, options.duration().toSeconds(), rate);
            out.flush();

            Thread injector = new Thread(() -> inject(plan, config), "chaos-faults");
            loadStartMs = System.currentTimeMillis();
            mcpLoad = new McpLoad("http://127.0.0.1:" + gatewayPort, load.taskId(), load, MCP_CALLS_PER_SECOND);
            injector.start();
            probe.start(PROBE_EVERY_MS);
            mcpLoad.start();
            pace(rate, loadStartMs, loadStartMs + options.duration().toMillis());
            mcpLoad.stopIssuing();
            injector.join();
            probe.close();
            heal();
            load.flush();
            out.printf("load done: %d actions; settling (up to %d s) ...%n", load.actions().size(),
                    options.settleTimeout().toSeconds());
            out.flush();
            awaitSettled(load.actions(), options.settleTimeout());
            long mcpOpen = mcpLoad.awaitSettled(Duration.ofSeconds(60));
            if (mcpOpen > 0) {
                out.println("settle timeout: " + mcpOpen + " MCP call(s) without a settled state (the checker decides)");
            }
            // let the last transactions commit and the last lookups answer
            Thread.sleep(3_000);

            List<ExpectedAction> expected = new ArrayList<>(load.actions().stream()
                    .map(a -> new ExpectedAction(a.key, a.kind.name(), a.acked, a.marker)).toList());
            List<McpLoad.Call> mcpCalls = mcpLoad.calls();
            mcpCalls.forEach(c -> expected.add(new ExpectedAction(c.key, "MCP", c.answered, c.marker)));
            ProviderLog providerLog = providerLog();
            writeJson(results.resolve("provider-log.json"), providerLog.byKey());
            writeJson(results.resolve("actions.json"), expected);
            Checker checker = new Checker(bootstrap, PREFIX, Load.INPUT_MARKER, secret, HANGING_AFTER,
                    TRANSACTIONS_END_WITHIN);
            if (options.cluster()) {
                checker.requireReplication(CLUSTER_NODES, CLUSTER_MIN_ISR);
            }
            checker.requireMcp(McpLog.read(results.resolve(MCP_EFFECT_LOG)), mcpCalls.stream().map(c -> c.key)
                    .collect(java.util.stream.Collectors.toSet()));
            Map<String, java.security.PublicKey> trusted = new LinkedHashMap<>();
            trusted.put(Load.KEY_ID, load.publicKey());
            if (service != null) {
                trusted.put(ServiceApprover.KEY_ID, service.publicKey());
                out.println("approval service: " + service.stats());
                out.flush();
            }
            checker.requireApprovals(trusted, java.util.Set.of(Load.SEND_TOOL, McpLoad.TOOL));
            CheckResult result = checker.check(expected, providerLog, probe.log());
            out.print(result.describe());
            out.flush();
            List<FaultRecord> measured = recoveryTimes();
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.putAll(reportRows);
            String mcpRow = "MCP host (through the gateway): calls / settled / answers lost / calls redelivered after "
                    + "a lost answer / executions at the upstream";
            String mcpCounts = mcpCalls.size() + " / " + mcpCalls.stream().filter(McpLoad.Call::settled).count()
                    + " / " + mcpLoad.lostAnswers() + " / " + mcpLoad.redeliveries() + " / "
                    + McpLog.read(results.resolve(MCP_EFFECT_LOG)).executions().size();
            extra.put(mcpRow, mcpCounts);
            out.println(mcpRow + ": " + mcpCounts);
            out.flush();
            if (service != null) {
                ServiceApprover.Stats st = service.stats();
                extra.put("approval service (2 replicas, 3 people): reviews handed / decisions posted / published / "
                        + "replicas killed mid-decision / decided again after a kill / found decided after a kill / "
                        + "gave up / replicas restarted after stopping on their own", st.handed() + " / "
                        + st.posted() + " / " + st.published() + " / " + st.replicaKills() + " / "
                        + st.decidedAgainAfterKill() + " / " + st.alreadyDecidedAfterKill() + " / " + st.failures()
                        + " / " + st.selfStopRestarts());
            }
            ChaosReport.write(results, options, plan, measured, result, load, providerLog,
                    System.currentTimeMillis() - started, extra);
            out.println("report: " + results.resolve("chaos-report.md"));
            out.flush();
            return result.ok() ? 0 : 1;
        } finally {
            shutdown();
            try {
                Runtime.getRuntime().removeShutdownHook(orphans);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs
            }
        }
    }

    private void killChildren() {
        for (Child child : children) {
            try {
                child.kill9();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        NetworkNamespaces n = net;
        if (n != null) {
            n.close();
        }
    }

    private void startBroker(Child broker) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            broker.start();
            if (broker.awaitReady(START_TIMEOUT_MS)) {
                return;
            }
            broker.kill9();
            if (attempt == 10) {
                throw new IllegalStateException(broker.name() + " did not start; see "
                        + logs.resolve(broker.name() + ".log"));
            }
            Thread.sleep(2_000); // e.g. the client port not yet free again after a kill -9
        }
    }

    private Path writeNodeConfig(Path results, String bootstrap) throws IOException {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrap);
        p.setProperty("topic.prefix", PREFIX);
        p.setProperty("application.id", APPLICATION_ID);
        if (options.cluster()) {
            // the gate's internal topics (changelogs, repartition) replicated like every actiongate topic
            p.setProperty("gate.streams.replication.factor", Integer.toString(CLUSTER_NODES));
            p.setProperty("gate.streams.topic.min.insync.replicas", Integer.toString(CLUSTER_MIN_ISR));
        }
        p.setProperty("http.port", "0");
        p.setProperty("http.bind.address", "127.0.0.1");
        p.setProperty("gate.trusted.keys", load.trustedKeyConfig()
                + (service == null ? "" : "," + service.trustedKeyConfig()));
        p.setProperty("gate.approvers", Load.ORG + ":*");
        p.setProperty("gate.lease.duration", LEASE.toSeconds() + "s");
        p.setProperty("gate.dispatch.timeout", DISPATCH_TIMEOUT.toSeconds() + "s");
        p.setProperty("gate.punctuate.interval", "500ms");
        // every producer of the run has a transaction timeout of 20 s at most: a transaction open for 30 s hangs
        p.setProperty("gate.transactions.hanging.check.interval", "5s");
        p.setProperty("gate.transactions.hanging.min.age", "30s");
        p.setProperty("gate.retry.backoff", "500ms");
        p.setProperty("gate.streams.commit.interval.ms", "100");
        p.setProperty("gate.streams.session.timeout.ms", Long.toString(SESSION_TIMEOUT_MS));
        p.setProperty("gate.streams.heartbeat.interval.ms", "1500");
        p.setProperty("executor.group.id", "chaos-executor");
        p.setProperty("executor.poll.timeout", "200");
        p.setProperty("executor.consumer.session.timeout.ms", Long.toString(SESSION_TIMEOUT_MS));
        p.setProperty("executor.consumer.heartbeat.interval.ms", "1500");
        p.setProperty("reconciler.backoff.initial", "500ms");
        p.setProperty("reconciler.backoff.max", "3s");
        p.setProperty("connectors.webhook.base-url", provider.baseUri().toString());
        p.setProperty("connectors.webhook.operations", Load.SEND_TOOL);
        p.setProperty("connectors.webhook.read-operations", Load.READ_TOOL);
        p.setProperty("connectors.webhook.credential", "env:" + SECRET_ENV);
        p.setProperty("connectors.webhook.response-timeout-ms", "1500");
        p.setProperty("connectors.webhook.retry-after-cap-seconds", "5");
        // the MCP gateway (role mcp-gateway) and the executors' mcp connector, both on the sandbox MCP upstream
        String upstream = McpLoad.UPSTREAM;
        p.setProperty("mcp.gateway.upstreams", upstream);
        p.setProperty("mcp.gateway.upstream." + upstream + ".url", mcpUpstream.url());
        Path tokens = results.resolve("mcp-gateway-tokens");
        Files.writeString(tokens, McpLoad.TOKEN + " " + McpLoad.HOST + " " + Load.ORG + " " + Load.PROFILE + "\n",
                StandardCharsets.UTF_8);
        p.setProperty("mcp.gateway.tokens.file", tokens.toString());
        p.setProperty("mcp.gateway.review.url", "http://127.0.0.1/review/{task_id}/{tool_call_id}");
        p.setProperty("mcp.gateway.host", "127.0.0.1");
        p.setProperty("mcp.gateway.port", Integer.toString(gatewayPort));
        p.setProperty("mcp.gateway.answer.timeout.ms", "2000");
        p.setProperty("connectors.mcp.upstreams", upstream);
        p.setProperty("connectors.mcp.upstream." + upstream + ".url", mcpUpstream.url());
        p.setProperty("connectors.mcp.upstream." + upstream + ".status-tool", SandboxMcpServer.STATUS_TOOL);
        p.setProperty("connectors.mcp.upstream." + upstream + ".response-timeout-ms", "1500");
        Path file = results.resolve("node.properties");
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "chaos run node settings (every child node; gates add state.dir on the command line)");
        }
        return file;
    }

    private static Map<String, String> nodeConfig(Path file) throws IOException {
        Properties p = new Properties();
        try (java.io.Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> map = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> map.put(k, p.getProperty(k)));
        return map;
    }

    private Child node(String name, String roles, Path config, Path results, String stateDir) {
        List<String> args = new ArrayList<>(List.of("run", "--roles=" + roles, "--config", config.toString()));
        if (stateDir != null) {
            // one config file per gate: state.dir differs
            Path own = results.resolve(name + ".properties");
            try {
                Files.writeString(own, Files.readString(config, StandardCharsets.UTF_8) + "state.dir="
                        + stateDir.replace("\\", "\\\\") + "\n", StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            args.set(3, own.toString());
        }
        Map<String, String> env = new java.util.HashMap<>(Map.of(SECRET_ENV, secret));
        if (SKEWED_GATE.equals(name)) {
            env.putAll(ClockSkew.environment(options.gateClockSkew(), ClockSkew.library(ClockSkew.LIBRARIES)));
        }
        Child child = new Child(name, Child.javaCommand(options.childHeap(), io.actiongate.cli.Main.class.getName(),
                args), env, logs, NODE_READY);
        children.add(child);
        return child;
    }

    private Child addGate(Path config) throws IOException {
        int id = ++gateIds;
        Path results = options.results();
        Path state = Files.createDirectories(results.resolve("state").resolve("gate-" + id));
        Child gate = node("gate-" + id, "gate", config, results, state.toString());
        gates.add(gate);
        return gate;
    }

    private void inject(FaultPlan plan, Path config) {
        for (FaultPlan.Step step : plan.steps()) {
            try {
                long wait = loadStartMs + step.atMs() - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                faults.add(apply(step, config));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                out.println("fault #" + step.index() + " failed: " + e);
                out.flush();
            }
        }
    }

    private FaultRecord apply(FaultPlan.Step step, Path config) throws Exception {
        long at = System.currentTimeMillis(); // when the fault is injected
        String target;
        switch (step.kind()) {
            case KILL_GATE -> {
                Child gate = gates.get(step.target() % gates.size());
                target = gate.name();
                gate.kill9();
                Thread.sleep(step.downMs());
                gate.start();
            }
            case KILL_EXECUTOR -> {
                Child executor = executors.get(step.target() % executors.size());
                target = executor.name();
                executor.kill9();
                Thread.sleep(step.downMs());
                executor.start();
            }
            case KILL_RECONCILER -> {
                target = reconciler.name();
                reconciler.kill9();
                Thread.sleep(step.downMs());
                reconciler.start();
            }
            case KILL_BROKER -> {
                Child broker = brokers.get(step.target() % brokers.size());
                target = broker.name();
                broker.kill9();
                Thread.sleep(step.downMs());
                startBroker(broker);
            }
            case KILL_CHANGELOG_LEADER, KILL_TXN_COORDINATOR, KILL_CONTROLLER -> {
                FaultTargets targets = new FaultTargets(faultAdmin, APPLICATION_ID);
                Optional<FaultTargets.Target> found = switch (step.kind()) {
                    case KILL_CHANGELOG_LEADER -> targets.changelogLeader(step.target());
                    case KILL_TXN_COORDINATOR -> targets.transactionCoordinator(step.target());
                    default -> targets.activeController();
                };
                if (found.isEmpty()) {
                    throw new IllegalStateException("the Admin API named no target for " + step.kind());
                }
                Child broker = cluster.node(found.get().nodeId());
                target = broker.name() + ", " + found.get().why();
                broker.kill9();
                Thread.sleep(step.downMs());
                startBroker(broker);
            }
            case ROLLING_RESTART -> {
                for (Child broker : brokers) {
                    broker.stop(30_000);
                    startBroker(broker);
                    Thread.sleep(step.downMs());
                }
                target = "every broker in turn";
            }
            case PAUSE_BROKER -> {
                Child broker = brokers.get(step.target() % brokers.size());
                target = broker.name();
                broker.pause();
                Thread.sleep(step.downMs());
                broker.resume();
            }
            case KILL_APPROVER -> {
                service.killNextDecision(step.approverKillDelayMs());
                long deadline = System.currentTimeMillis() + 60_000;
                Child killed = null;
                while (killed == null && System.currentTimeMillis() < deadline) {
                    killed = service.replicas().stream().filter(c -> !c.alive()).findFirst().orElse(null);
                    Thread.sleep(50);
                }
                // the fault is the kill: the wait for a person's next decision post before it is no outage
                at = System.currentTimeMillis();
                if (killed == null) {
                    // no decision was posted within a minute: kill one anyway, between decisions
                    service.killNextDecision(-1);
                    killed = service.replicas().get(step.target() % service.replicas().size());
                    killed.kill9();
                    target = killed.name() + " (no decision in flight within 60 s)";
                } else {
                    target = killed.name() + " (mid-decision)";
                }
                Thread.sleep(step.downMs());
                killed.start();
                killed.awaitReady(START_TIMEOUT_MS);
            }
            case PARTITION_FROM_PEERS, PARTITION_ISOLATED -> {
                int node = step.target() % CLUSTER_NODES + 1;
                target = cluster.node(node).name();
                if (step.kind() == FaultPlan.Kind.PARTITION_FROM_PEERS) {
                    net.cutFromPeers(node);
                } else {
                    net.isolate(node);
                }
                Thread.sleep(step.downMs());
                net.heal(node);
            }
            case KILL_GATEWAY -> {
                target = gateway.name();
                gateway.kill9();
                Thread.sleep(step.downMs());
                gateway.start();
                gateway.awaitReady(START_TIMEOUT_MS);
            }
            case PAUSE_EXECUTOR -> {
                Child executor = executors.get(step.target() % executors.size());
                target = executor.name();
                executor.pause();
                Thread.sleep(step.downMs());
                executor.resume();
            }
            case ADD_GATE -> {
                String replaced = "";
                if (gates.size() >= MAX_GATES) {
                    Child oldest = gates.remove(0);
                    oldest.stop(30_000);
                    replaced = " (" + oldest.name() + " stopped first: " + MAX_GATES + " is the most)";
                }
                Child gate = addGate(config);
                target = gate.name() + replaced;
                gate.start();
            }
            case REMOVE_GATE -> {
                String added = "";
                if (gates.size() <= 1) {
                    Child extra = addGate(config);
                    extra.start();
                    added = " (" + extra.name() + " started first: one gate is the least)";
                }
                Child gate = gates.remove(step.target() % gates.size());
                target = gate.name() + added;
                gate.stop(30_000);
            }
            case PROVIDER_TIMEOUT_AFTER_APPLY -> {
                target = "provider";
                for (int i = 0; i < step.providerRequests(); i++) {
                    provider.program(Fault.delayAfterApply(null, Duration.ofSeconds(3)));
                }
            }
            case PROVIDER_RESET_AFTER_APPLY -> {
                target = "provider";
                for (int i = 0; i < step.providerRequests(); i++) {
                    provider.program(Fault.dropAfterApply(null));
                }
            }
            case PROVIDER_5XX -> {
                target = "provider";
                for (int i = 0; i < step.providerRequests(); i++) {
                    provider.program(Fault.errorAfterApply(null));
                }
            }
            case PROVIDER_429 -> {
                target = "provider";
                provider.program(Fault.rateLimit(null, step.providerRequests(), "1"));
            }
            default -> throw new IllegalStateException("unhandled fault " + step.kind());
        }
        long restored = System.currentTimeMillis();
        out.printf("fault #%d at t+%.1fs: %s (%s), restored after %d ms%n", step.index(),
                (at - loadStartMs) / 1000.0, step.describe(), target, restored - at);
        out.flush();
        return new FaultRecord(step.index(), step.kind().name(), step.describe(), target, at - loadStartMs,
                restored - loadStartMs, -1);
    }

    /** Submits actions at {@code rate} per second from {@code startMs} until {@code endMs}; returns them. */
    private List<Load.Action> pace(double rate, long startMs, long endMs) throws InterruptedException {
        List<Load.Action> sent = new ArrayList<>();
        double intervalMs = 1000 / rate;
        double nextAt = startMs;
        while (System.currentTimeMillis() < endMs) {
            sent.add(load.submit());
            nextAt += intervalMs;
            long sleep = (long) nextAt - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
        }
        return sent;
    }

    /**
     * The saturation of this topology on this machine, measured before the storm with the faults off: steps of
     * {@link #SATURATION_STEP} at doubling rates, then one between the last kept and the first missed. A step is
     * kept when the sender kept its pace (95 % of the planned actions sent) and every action of it that the load
     * decides itself settled within {@link #SATURATION_GRACE} of the step's end (those handed to the approval
     * service wait for a person's next one-time code and are left out). The saturation is the highest kept rate.
     */
    private double measureSaturation() throws InterruptedException {
        double kept = 0;
        double missed = Double.NaN;
        double rate = SATURATION_FIRST_RATE;
        boolean bisected = false;
        while (true) {
            boolean ok = saturationStep(rate);
            if (ok) {
                kept = rate;
            } else {
                missed = rate;
                // let the backlog drain before the next step (or the storm)
                awaitSettled(load.actions().stream().filter(a -> !a.viaService).toList(), Duration.ofMinutes(3));
            }
            if (!Double.isNaN(missed) && kept == 0) {
                // not even the first rate was kept (an overloaded machine): halve it until one is
                if (rate / 2 < SATURATION_MIN_RATE) {
                    break;
                }
                rate /= 2;
                continue;
            }
            if (!Double.isNaN(missed)) {
                if (bisected) {
                    break;
                }
                bisected = true;
                rate = (kept + missed) / 2;
                if (rate - kept < 1) {
                    break;
                }
                continue;
            }
            if (rate >= SATURATION_MAX_RATE) {
                break;
            }
            rate *= 2;
        }
        double saturation = kept == 0 ? SATURATION_MIN_RATE : kept;
        out.printf(java.util.Locale.ROOT, "measured saturation: %.2f actions/s (%s)%n", saturation,
                kept == 0 ? "no step kept, not even " + SATURATION_MIN_RATE + "/s: the lowest step, not a measurement"
                        : "highest step kept");
        out.flush();
        return saturation;
    }

    private boolean saturationStep(double rate) throws InterruptedException {
        long start = System.currentTimeMillis();
        long end = start + SATURATION_STEP.toMillis();
        List<Load.Action> sent = pace(rate, start, end);
        long planned = (long) (rate * SATURATION_STEP.toSeconds());
        boolean paced = sent.size() >= 0.95 * planned;
        List<Load.Action> own = sent.stream().filter(a -> !a.viaService).toList();
        long deadline = end + SATURATION_GRACE.toMillis();
        while (System.currentTimeMillis() < deadline
                && !own.stream().allMatch(a -> a.acked && a.settledAtMs != 0 && a.settledAtMs <= deadline)) {
            Thread.sleep(200);
        }
        long late = own.stream().filter(a -> !a.acked || a.settledAtMs == 0 || a.settledAtMs > deadline).count();
        long lastSettled = own.stream().mapToLong(a -> a.settledAtMs).max().orElse(end);
        boolean ok = paced && late == 0;
        out.printf(java.util.Locale.ROOT, "saturation step %.2f actions/s: %d of %d sent, %d not settled within "
                + "%d s of the step's end (last settled %+.1f s after it): %s%n", rate, sent.size(), planned, late,
                SATURATION_GRACE.toSeconds(), (lastSettled - end) / 1000.0, ok ? "kept" : "missed");
        out.flush();
        return ok;
    }

    /** Restarts whatever is down and resumes whatever is paused, so everything pending can settle. */
    private void heal() throws InterruptedException, IOException {
        if (net != null) {
            net.healAll();
        }
        for (Child child : children) {
            child.resume();
        }
        for (Child broker : brokers) {
            if (!broker.alive()) {
                startBroker(broker);
            }
        }
        if (service != null) {
            for (Child replica : service.replicas()) {
                if (!replica.alive()) {
                    replica.start();
                }
            }
        }
        for (Child child : List.of(reconciler, gateway)) {
            if (!child.alive()) {
                child.start();
            }
        }
        for (Child child : executors) {
            if (!child.alive()) {
                child.start();
            }
        }
        for (Child child : gates) {
            if (!child.alive()) {
                child.start();
            }
        }
    }

    private void awaitSettled(List<Load.Action> actions, Duration timeout) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (System.currentTimeMillis() < deadline) {
            if (actions.stream().allMatch(a -> a.acked && a.settledAtMs != 0)) {
                return;
            }
            Thread.sleep(500);
        }
        long open = actions.stream().filter(a -> !a.acked || a.settledAtMs == 0).count();
        out.println("settle timeout: " + open + " action(s) without a settled receipt (the checker decides)");
        out.flush();
    }

    /**
     * Recovery after each fault: from the injection to the moment the first action proposed after the fault was
     * restored reached a settled receipt.
     */
    private List<FaultRecord> recoveryTimes() {
        List<Load.Action> actions = load.actions();
        List<FaultRecord> measured = new ArrayList<>();
        for (FaultRecord f : faults) {
            long restoredAbs = loadStartMs + f.restoredAtMs();
            long injectedAbs = loadStartMs + f.injectedAtMs();
            long recovered = actions.stream()
                    .filter(a -> a.submittedAtMs >= restoredAbs && a.settledAtMs != 0)
                    .mapToLong(a -> a.settledAtMs).min().orElse(-1);
            long slowest = actions.stream()
                    .filter(a -> a.submittedAtMs >= injectedAbs && a.submittedAtMs < restoredAbs && a.settledAtMs != 0)
                    .mapToLong(a -> a.settledAtMs - a.submittedAtMs).max().orElse(-1);
            measured.add(new FaultRecord(f.index(), f.kind(), f.description(), f.target(), f.injectedAtMs(),
                    f.restoredAtMs(), recovered < 0 ? -1 : recovered - injectedAbs, slowest));
        }
        return measured;
    }

    private ProviderLog providerLog() {
        Map<String, ProviderLog.Entry> entries = new LinkedHashMap<>();
        provider.requestsByKey().forEach((key, posts) -> entries.put(key,
                new ProviderLog.Entry(posts, provider.appliedRequests(key), provider.effects(key),
                        provider.lookups(key))));
        return new ProviderLog(entries);
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static void writeJson(Path file, Object value) throws IOException {
        new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter()
                .writeValue(file.toFile(), value);
    }

    private void shutdown() {
        if (probe != null) {
            probe.close();
        }
        if (mcpLoad != null) {
            mcpLoad.close();
        }
        if (service != null) {
            service.close();
        }
        if (load != null) {
            load.close();
        }
        if (faultAdmin != null) {
            faultAdmin.close(Duration.ofSeconds(5));
        }
        for (Child child : children) {
            if (!brokers.contains(child)) {
                try {
                    child.stop(20_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (Child broker : brokers) {
            try {
                broker.stop(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (provider != null) {
            provider.close();
        }
        if (mcpUpstream != null) {
            mcpUpstream.close();
        }
        if (net != null) {
            net.close();
        }
    }

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
