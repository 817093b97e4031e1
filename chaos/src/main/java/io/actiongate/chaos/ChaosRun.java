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
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
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
                   Duration gateClockSkew, boolean measureSaturation, boolean networkNamespaces,
                   ReleaseBuild.Built previous) {

        /** Not an upgrade run. */
        Options(Duration duration, long seed, int gates, int partitions, double actionsPerSecond,
                Duration faultSpacing, Path results, String childHeap, Duration settleTimeout, boolean cluster,
                Duration gateClockSkew, boolean measureSaturation, boolean networkNamespaces) {
            this(duration, seed, gates, partitions, actionsPerSecond, faultSpacing, results, childHeap, settleTimeout,
                    cluster, gateClockSkew, measureSaturation, networkNamespaces, null);
        }

        /**
         * An upgrade run from {@code previous} (docs/chaos.md, "Rolling upgrade"): every role starts as that release
         * and is replaced by this build, one instance at a time, under load; no faults.
         */
        Options upgradingFrom(ReleaseBuild.Built release) {
            return new Options(duration, seed, gates, partitions, actionsPerSecond, faultSpacing, results, childHeap,
                    settleTimeout, cluster, gateClockSkew, measureSaturation, networkNamespaces, release);
        }

        boolean upgrade() {
            return previous != null;
        }

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
                    settleTimeout, cluster, gateClockSkew, measureSaturation, networkNamespaces, previous);
        }

        /** Replicas of every topic: 3 on the cluster, 1 on the single broker. */
        short replicationFactor() {
            return (short) (cluster ? CLUSTER_NODES : 1);
        }
    }

    /**
     * One injected fault and how it went: when it was injected and over (after the load started), its time to recover
     * (from the injection until the first action proposed after it was over settled; {@link #NOT_RECOVERED} when
     * actions were proposed after it and none settled, {@link #NOTHING_PROPOSED_AFTER} when the load proposed nothing
     * after it, as after an upgrade run's rollback drill), and the longest an action proposed while it lasted took
     * to settle (-1 when none was proposed then, or none settled).
     */
    record FaultRecord(int index, String kind, String description, String target, long injectedAtMs,
                       long restoredAtMs, long recoveredAfterMs, long slowestDuringMs) {

        /** Actions were proposed after the fault was over, and none of them settled. */
        static final long NOT_RECOVERED = -1;
        /** The load proposed nothing after the fault was over: its recovery could not be seen either way. */
        static final long NOTHING_PROPOSED_AFTER = -2;

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
    /** The executors' consumer group. */
    static final String EXECUTOR_GROUP = "chaos-executor";
    /** This build's class path: what an upgrade run replaces every role with. */
    static final String CURRENT_CLASSPATH = System.getProperty("java.class.path");
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
    /** An upgrade run: when the first role was replaced (0 before), what was in flight then, and after. */
    private volatile long upgradeStartMs;
    private volatile long approversUpgradedMs;
    private final Map<String, Object> upgradeRows = new LinkedHashMap<>();
    private final List<Load.Action> rollbackActions = new CopyOnWriteArrayList<>();

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
        FaultPlan plan = options.upgrade() ? new FaultPlan(options.seed(), options.duration(), List.of())
                : FaultPlan.generate(options.seed(), options.duration(), options.faultSpacing(), SESSION_TIMEOUT_MS,
                        options.cluster(), options.cluster() && options.networkNamespaces(), true);
        String schedule = options.upgrade() ? UpgradeSteps.describe(options.previous(), options.gates())
                : plan.describe();
        out.print(schedule);
        out.flush();
        Files.writeString(results.resolve("fault-schedule.txt"), schedule, StandardCharsets.UTF_8);
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
            if (options.upgrade()) {
                // the operator's control plane is the previous release's too: a newer policy writer could write a
                // schema version its gates do not read yet (docs/operating.md, "Upgrades")
                Path policy = Files.writeString(results.resolve("policy.json"), load.policyJson(),
                        StandardCharsets.UTF_8);
                previousCommand(List.of("policy", "put", "--file", policy.toString(), "--bootstrap-servers",
                        bootstrap, "--prefix", PREFIX));
            } else {
                load.publishPolicy();
            }
            if (options.cluster()) {
                service = ServiceApprover.create(results, logs, bootstrap, PREFIX, options.childHeap(),
                        options.seed(), List.of(freePort(), freePort()), startClasspath());
                children.addAll(service.replicas());
            }
            gatewayPort = freePort();
            Path config = writeNodeConfig(results, bootstrap);
            // the operator's `actiongate mcp import --trust notes_post`: its descriptor from the upstream's schema
            if (options.upgrade()) {
                previousCommand(List.of("mcp", "import", "--config", config.toString(), "--upstream",
                        McpLoad.UPSTREAM, "--trust", McpLoad.TOOL));
            } else {
                io.actiongate.mcp.McpImport.run(io.actiongate.mcp.GatewayConfig.from(nodeConfig(config)),
                        McpLoad.UPSTREAM, java.util.Set.of(McpLoad.TOOL));
            }
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

            Thread injector = options.upgrade() ? new Thread(() -> upgrade(config), "chaos-upgrade")
                    : new Thread(() -> inject(plan, config), "chaos-faults");
            loadStartMs = System.currentTimeMillis();
            mcpLoad = new McpLoad("http://127.0.0.1:" + gatewayPort, load.taskId(), load, MCP_CALLS_PER_SECOND);
            injector.start();
            probe.start(PROBE_EVERY_MS);
            mcpLoad.start();
            pace(rate, loadStartMs, loadStartMs + options.duration().toMillis());
            if (options.upgrade()) {
                // the load goes on through the whole upgrade, and a while after the last replacement
                while (injector.isAlive()) {
                    long now = System.currentTimeMillis();
                    pace(rate, now, now + 5_000);
                }
                long now = System.currentTimeMillis();
                pace(rate, now, now + UpgradeSteps.TAIL.toMillis());
            }
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
            if (options.upgrade()) {
                rollbackDrill(config);
            }
            // let the last transactions commit and the last lookups answer
            Thread.sleep(3_000);

            List<ExpectedAction> expected = new ArrayList<>(load.actions().stream().map(this::expected).toList());
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
            if (options.upgrade()) {
                extra.putAll(upgradeRows(result));
            }
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
        p.setProperty("executor.group.id", EXECUTOR_GROUP);
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
        if (options.upgrade()) {
            UpgradeSteps.NODE_SETTINGS.forEach(p::setProperty);
        }
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
        Child child = new Child(name, Child.javaCommand(options.childHeap(), startClasspath(),
                io.actiongate.cli.Main.class.getName(), args), env, logs, NODE_READY);
        children.add(child);
        return child;
    }

    /** What every role starts as: the previous release's jar in an upgrade run, else this build. */
    private String startClasspath() {
        return options.upgrade() ? options.previous().classpath() : CURRENT_CLASSPATH;
    }

    /** Runs one command of the previous release's command line to its end (an upgrade run's operator). */
    private void previousCommand(List<String> args) throws IOException, InterruptedException {
        Path log = logs.resolve("previous-release-commands.log");
        Process p = new ProcessBuilder(Child.javaCommand("256m", options.previous().classpath(),
                io.actiongate.cli.Main.class.getName(), args)).redirectErrorStream(true)
                .redirectOutput(java.lang.ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("the previous release's `actiongate " + String.join(" ", args.subList(0, 2))
                    + "` failed; see " + log);
        }
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

    /**
     * The upgrade (an upgrade run's injector thread): puts actions into every state the issue lists, then replaces
     * every role's instances one at a time with this build (gates, executors, reconciler, approval service replicas,
     * MCP gateway), each step recorded like a fault with its time to recover, while the load goes on.
     */
    private void upgrade(Path config) {
        UpgradeSteps counts = UpgradeSteps.forDuration(options.duration());
        try {
            Thread.sleep(Math.max(0, loadStartMs + UpgradeSteps.WARMUP.toMillis() - System.currentTimeMillis()));
            long at = System.currentTimeMillis();
            // retry due after a 429 (approved before the upgrade), expiring (its approval ends before the retry),
            // waiting for a human (approved after the gates, and after the approval service, were replaced)
            List<Load.Action> prepared = new ArrayList<>();
            for (int i = 0; i < counts.each(); i++) {
                prepared.add(load.submit(Load.Kind.RETRY_DUE,
                        key -> provider.program(Fault.rateLimit(key, 1, UpgradeSteps.RETRY_AFTER_SECONDS))));
                prepared.add(load.submit(Load.Kind.EXPIRING,
                        key -> provider.program(Fault.rateLimit(key, 1, UpgradeSteps.RETRY_AFTER_SECONDS))));
                prepared.add(load.submit(Load.Kind.AWAITING_HUMAN));
                prepared.add(load.submit(Load.Kind.AWAITING_HUMAN));
            }
            // each in its state or past it: a retry due or expiring action has met its 429 (its status moves on
            // while the others are waited for: an expiring one may already be EXPIRED), one waiting for a human
            // shows WAITING_APPROVAL until it is approved
            awaitCondition(() -> prepared.stream().allMatch(a -> a.kind == Load.Kind.AWAITING_HUMAN
                    ? "WAITING_APPROVAL".equals(a.lastStatus) : provider.requests(a.idempotencyKey()) > 0
                            || "EXPIRED".equals(a.lastStatus)), "in their state");
            upgradeStartMs = System.currentTimeMillis();
            upgradeRows.put("in flight when the first gate was replaced (last receipt: count)", inFlight());
            faults.add(stepRecord(0, "PREPARE", "actions put into waiting for a human, approved and retry due "
                    + "after a 429, and expiring", "load and provider", at));
            int index = 1;
            for (Child gate : List.copyOf(gates)) {
                replace(index++, "UPGRADE_GATE", gate, gates);
            }
            List<Load.Action> early = load.releaseHeld(counts.each(), false);
            out.println("upgrade: " + early.size() + " actions waiting for a human approved after the gates were "
                    + "replaced");
            out.flush();

            // dispatching (the provider holds the request) and approved and reserved (no executor read it yet)
            at = System.currentTimeMillis();
            List<Load.Action> atProvider = new ArrayList<>();
            for (int i = 0; i < counts.each(); i++) {
                atProvider.add(load.submit(Load.Kind.AT_PROVIDER,
                        key -> provider.program(Fault.holdBeforeApply(key, UpgradeSteps.PROVIDER_HOLD))));
            }
            awaitCondition(() -> atProvider.stream().allMatch(a -> provider.requests(a.idempotencyKey()) > 0),
                    "held at the provider");
            executors.forEach(Child::pause);
            List<Load.Action> reserved = new ArrayList<>();
            for (int i = 0; i < counts.each(); i++) {
                reserved.add(load.submit(Load.Kind.RESERVED));
            }
            // bounded well inside the lease: a reservation left unread past it is never dispatched (UNKNOWN, then
            // NOT_APPLIED), which is what a paused executor is meant to show only in a fault run
            awaitCondition(() -> reserved.stream().allMatch(a -> "DISPATCHING".equals(a.lastStatus)),
                    "reserved", UpgradeSteps.PAUSE_TIMEOUT);
            // the previous release's executor, stopped while it commits a batch, can commit it and dispatch none of
            // it (its stop's wakeup ends commitSync after the request was sent; this build dispatches such a batch):
            // once the group has let the paused executors go, a commit of theirs is refused, so the first
            // replacement's SIGCONT and SIGTERM cannot skip what was reserved meanwhile (docs/chaos.md)
            awaitCondition(this::executorsOutOfTheirGroup, "out of their group (the executors)",
                    UpgradeSteps.GROUP_EXPIRY_TIMEOUT);
            long reservedWhilePaused = reserved.stream().filter(a -> "DISPATCHING".equals(a.lastStatus)).count();
            upgradeRows.put("in flight when the first executor was replaced (last receipt: count; "
                    + atProvider.size() + " of the DISPATCHING held at the provider, " + reservedWhilePaused + " of "
                    + reserved.size() + " approved while the executors were paused already reserved)", inFlight());
            faults.add(stepRecord(index++, "PREPARE", "requests held at the provider; executors paused while "
                    + "actions were approved and reserved", "load, provider, executors", at));
            for (int i = 0; i < executors.size(); i++) {
                Child old = executors.get(i);
                List<Child> others = executors.stream().filter(c -> c != old).toList();
                replace(index++, "UPGRADE_EXECUTOR", old, executors, () -> others.forEach(Child::resume));
            }

            // unknown, with the reconciler asking the provider (whose lookups fail for a while)
            at = System.currentTimeMillis();
            List<Load.Action> asked = new ArrayList<>();
            for (int i = 0; i < counts.each(); i++) {
                asked.add(load.submit(Load.Kind.RECONCILER_ASKING, key -> {
                    provider.program(Fault.dropAfterApply(key));
                    provider.program(Fault.lookupError(key, UpgradeSteps.FAILED_LOOKUPS));
                }));
            }
            awaitCondition(() -> asked.stream().allMatch(a -> "UNKNOWN".equals(a.lastStatus)
                    && provider.lookups(a.idempotencyKey()) > 0), "UNKNOWN and asked");
            upgradeRows.put("in flight when the reconciler was replaced (last receipt: count)", inFlight());
            faults.add(stepRecord(index++, "PREPARE", "dispatches that reset after applying, whose lookups fail "
                    + UpgradeSteps.FAILED_LOOKUPS + " times", "load and provider", at));
            replace(index++, "UPGRADE_RECONCILER", reconciler, null);

            if (service != null) {
                for (int i = 0; i < service.replicas().size(); i++) {
                    replace(index++, "UPGRADE_APPROVER", service.replicas().get(i), null);
                }
                approversUpgradedMs = System.currentTimeMillis();
            }
            List<Load.Action> late = load.releaseHeld(Integer.MAX_VALUE, true);
            out.println("upgrade: " + late.size() + " actions waiting for a human handed to the approval service's "
                    + "people after its replicas were replaced");
            out.flush();
            replace(index, "UPGRADE_GATEWAY", gateway, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            out.println("upgrade step failed: " + e);
            e.printStackTrace(out);
            out.flush();
            upgradeRows.put("upgrade step failed", e.toString());
        }
    }

    /**
     * Replaces {@code old} (the previous release) with the same instance on this build: SIGTERM (graceful), then
     * {@code afterStop}, start, ready; recorded as a step with its time to recover, then a pause under load.
     */
    private void replace(int index, String kind, Child old, List<Child> role) throws InterruptedException {
        replace(index, kind, old, role, () -> { });
    }

    private void replace(int index, String kind, Child old, List<Child> role, Runnable afterStop)
            throws InterruptedException {
        long at = System.currentTimeMillis();
        old.stop(30_000);
        afterStop.run();
        Child next = old.onClasspath(CURRENT_CLASSPATH);
        children.set(children.indexOf(old), next);
        if (role != null) {
            role.set(role.indexOf(old), next);
        } else if (old == reconciler) {
            reconciler = next;
        } else if (old == gateway) {
            gateway = next;
        } else if (service != null && service.replicas().contains(old)) {
            service.replace(service.replicas().indexOf(old), next);
        }
        next.start();
        if (!next.awaitReady(START_TIMEOUT_MS)) {
            throw new IllegalStateException(next.name() + " on this build did not start; see " + logs);
        }
        faults.add(stepRecord(index, kind, "replace " + old.name() + " (the previous release) with this build: "
                + "SIGTERM, start, ready", old.name(), at));
        Thread.sleep(UpgradeSteps.BETWEEN_STEPS.toMillis());
    }

    private FaultRecord stepRecord(int index, String kind, String what, String target, long at) {
        long restored = System.currentTimeMillis();
        out.printf("upgrade step #%d at t+%.1fs: %s (%s), done after %d ms%n", index, (at - loadStartMs) / 1000.0,
                what, target, restored - at);
        out.flush();
        return new FaultRecord(index, kind, what, target, at - loadStartMs, restored - loadStartMs, -1);
    }

    /** The actions not terminal (UNKNOWN included) by their last receipt status, now. */
    private Map<String, Long> inFlight() {
        Set<String> terminal = Set.of("SUCCEEDED", "FAILED", "REJECTED", "DENIED", "EXPIRED", "CANCELLED",
                "NOT_APPLIED");
        Map<String, Long> counts = new java.util.TreeMap<>();
        // Set.of refuses to be asked about null: an action with no receipt yet is in flight too
        load.actions().stream().filter(a -> a.lastStatus == null || !terminal.contains(a.lastStatus))
                .forEach(a -> counts.merge(a.lastStatus == null ? "PROPOSED" : a.lastStatus, 1L, Long::sum));
        return counts;
    }

    /** Whether the executors' consumer group has no member left (a paused executor's session ran out). */
    private boolean executorsOutOfTheirGroup() {
        try {
            ConsumerGroupDescription group = faultAdmin.describeConsumerGroups(List.of(EXECUTOR_GROUP))
                    .describedGroups().get(EXECUTOR_GROUP).get(10, TimeUnit.SECONDS);
            return group.members().isEmpty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false; // asked again until the wait's bound
        }
    }

    private void awaitCondition(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        awaitCondition(condition, what, UpgradeSteps.PREPARE_TIMEOUT);
    }

    private void awaitCondition(java.util.function.BooleanSupplier condition, String what, Duration timeout)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                out.println("upgrade: not every prepared action was " + what + " within "
                        + timeout.toSeconds() + " s; going on (the checker decides)");
                out.flush();
                return;
            }
            Thread.sleep(200);
        }
    }

    /**
     * After the upgrade settled: the previous release's gate once more, in place of gate-1 on its state, against
     * the current release's data (a rollback); a few reads must settle through it. No format this build writes is
     * new to it, so it reads everything (docs/operating.md, "Upgrades").
     */
    private void rollbackDrill(Path config) throws InterruptedException {
        long at = System.currentTimeMillis();
        Child current = gates.get(0);
        current.stop(30_000);
        Child previous = current.onClasspath(options.previous().classpath());
        children.set(children.indexOf(current), previous);
        gates.set(0, previous);
        previous.start();
        boolean up = previous.awaitReady(START_TIMEOUT_MS);
        for (Child other : gates.subList(1, gates.size())) {
            other.stop(30_000); // the previous release's gate alone holds every partition
        }
        for (int i = 0; i < UpgradeSteps.ROLLBACK_READS; i++) {
            rollbackActions.add(load.submit(Load.Kind.ROLLBACK_READ));
        }
        awaitSettled(rollbackActions, Duration.ofMinutes(3));
        long settled = rollbackActions.stream().filter(a -> "SUCCEEDED".equals(a.settledStatus)).count();
        faults.add(stepRecord(faults.size() + 1, "ROLLBACK_DRILL", "rollback drill: gate-1 back to the previous "
                + "release on its state, the other gates stopped, " + UpgradeSteps.ROLLBACK_READS + " reads proposed",
                previous.name(), at));
        upgradeRows.put("rollback drill: the previous release's gate alone, on the current release's data",
                (up ? "started" : "did not start") + "; " + settled + " of " + rollbackActions.size()
                        + " reads proposed to it SUCCEEDED");
    }

    /** What the checker expects of {@code a}: how an upgrade run's kinds, and approvals given before it, end. */
    private ExpectedAction expected(Load.Action a) {
        String endsIn = switch (a.kind) {
            case AWAITING_HUMAN, RETRY_DUE, RECONCILER_ASKING, AT_PROVIDER, RESERVED, ROLLBACK_READ -> "SUCCEEDED";
            case EXPIRING -> "EXPIRED";
            default -> approvedBeforeUpgradeInFlight(a) ? "SUCCEEDED" : null;
        };
        return new ExpectedAction(a.key, a.kind.name(), a.acked, a.marker, endsIn,
                a.kind == Load.Kind.RETRY_DUE ? 2 : 0, a.kind == Load.Kind.RECONCILER_ASKING ? "RECONCILER" : null);
    }

    /** An approval given before the first role was replaced, to an action that had not settled by then. */
    private boolean approvedBeforeUpgradeInFlight(Load.Action a) {
        return upgradeStartMs > 0 && "APPROVE".equals(a.decision) && a.decidedAtMs > 0
                && a.decidedAtMs < upgradeStartMs && (a.settledAtMs == 0 || a.settledAtMs > upgradeStartMs)
                && a.kind != Load.Kind.EXPIRING;
    }

    /** The upgrade run's rows of the report, and its own checks of the approval service's people. */
    private Map<String, Object> upgradeRows(CheckResult result) {
        Map<String, Object> rows = new LinkedHashMap<>();
        ReleaseBuild.Built previous = options.previous();
        rows.put("previous release", previous.ref() + " (commit " + previous.shortCommit() + "), its production jar "
                + "built from the repository; every role started on it" + (previous.client() == null ? ""
                        : " (with the same build's actiongate-client jar: the production jar lacks it, and its MCP "
                        + "gateway cannot start without it)"));
        rows.putAll(upgradeRows);
        if (upgradeRows.containsKey("upgrade step failed")) {
            // the steps after it never ran: whatever the topics show, the upgrade was not carried out
            result.fail("(o) the upgrade stopped at a failed step: " + upgradeRows.get("upgrade step failed"));
        }
        List<Load.Action> before = load.actions().stream().filter(this::approvedBeforeUpgradeInFlight).toList();
        rows.put("approvals given before the upgrade to actions still in flight: count / SUCCEEDED (each with one "
                + "effect: checks (c), (m))", before.size() + " / "
                + before.stream().filter(a -> "SUCCEEDED".equals(a.settledStatus)).count());
        Map<String, Long> byKind = new java.util.TreeMap<>();
        load.actions().stream().filter(a -> a.kind.ownKey())
                .forEach(a -> byKind.merge(a.kind + " " + a.settledStatus, 1L, Long::sum));
        rows.put("actions put in flight for the upgrade, by how they ended", byKind);
        if (service != null) {
            Map<String, Boolean> signedIn = service.signedIn();
            Map<String, ServiceApprover.Activity> since = service.activity(upgradeStartMs);
            Map<String, ServiceApprover.Activity> after = service.activity(approversUpgradedMs);
            rows.put("approval service people after its replicas were replaced: still signed in on both replicas",
                    signedIn);
            rows.put("approval service people since the upgrade began", since);
            rows.put("approval service people after its replicas were replaced", after);
            signedIn.forEach((person, ok) -> {
                if (!ok) {
                    result.fail("(p) " + person + "'s session did not survive the approval service's upgrade");
                }
            });
            since.forEach((person, a) -> {
                if (a.signIns() > 0 || a.codeAppSetUps() > 0) {
                    result.fail("(p) " + person + " had to sign in or set up a code app again during the upgrade: "
                            + a);
                }
            });
            if (after.values().stream().mapToLong(ServiceApprover.Activity::approvals).sum() == 0) {
                result.fail("(p) no person approved with a one-time code after the approval service's upgrade");
            }
        }
        rows.forEach((k, v) -> out.println(k + ": " + v));
        out.flush();
        return rows;
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

    private List<FaultRecord> recoveryTimes() {
        return recoveryTimes(faults, load.actions(), loadStartMs);
    }

    /**
     * Recovery after each fault: from the injection to the moment the first action proposed after the fault was
     * restored reached a settled receipt; and the longest an action proposed while it lasted took to settle. That
     * longest leaves out actions decided through the approval service's pages, as the saturation steps do: a person
     * there waits for their one-time code app's next 30-second code before each decision, a wait of the load's
     * people, not of the system under the fault (the committed run of 6 December showed it: decisions published on
     * the step's boundary, 25 to 30 s after their actions were proposed).
     *
     * @param faults      as injected, times from {@code loadStartMs}
     * @param actions     every action of the load
     * @param loadStartMs when the load started (epoch ms)
     */
    static List<FaultRecord> recoveryTimes(List<FaultRecord> faults, List<Load.Action> actions, long loadStartMs) {
        List<FaultRecord> measured = new ArrayList<>();
        for (FaultRecord f : faults) {
            long restoredAbs = loadStartMs + f.restoredAtMs();
            long injectedAbs = loadStartMs + f.injectedAtMs();
            long recovered = actions.stream()
                    .filter(a -> a.submittedAtMs >= restoredAbs && a.settledAtMs != 0)
                    .mapToLong(a -> a.settledAtMs).min().orElse(-1);
            long slowest = actions.stream()
                    .filter(a -> a.submittedAtMs >= injectedAbs && a.submittedAtMs < restoredAbs && a.settledAtMs != 0
                            && !a.viaService)
                    .mapToLong(a -> a.settledAtMs - a.submittedAtMs).max().orElse(-1);
            boolean proposedAfter = actions.stream().anyMatch(a -> a.submittedAtMs >= restoredAbs);
            long recoveredAfter = !proposedAfter ? FaultRecord.NOTHING_PROPOSED_AFTER
                    : recovered < 0 ? FaultRecord.NOT_RECOVERED : recovered - injectedAbs;
            measured.add(new FaultRecord(f.index(), f.kind(), f.description(), f.target(), f.injectedAtMs(),
                    f.restoredAtMs(), recoveredAfter, slowest));
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
