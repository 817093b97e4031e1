package io.actiongate.loadtest.parts;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.actiongate.avro.ReceiptStatus;
import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;

import org.apache.kafka.common.TopicPartition;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.JvmNodes;
import io.actiongate.loadtest.harness.NodeJvm;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.RecordBudget;
import io.actiongate.loadtest.harness.SteadyLoad;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * Part "scale": row f's workload (read-only actions end to end, the same loopback provider) with the actiongate
 * nodes in JVMs of their own ({@link NodeJvm}), each node with roles gate and executor. Rows {@code s<P>}: one node
 * at P partitions for each of {@code --scale-partitions}. Rows {@code g1} and {@code g2}: one node, then two nodes
 * sharing one application id (Kafka Streams and the executor group split the partitions between them), at
 * {@code --partitions}; g2's ratio is to g1. Every row checks that each action SUCCEEDED, that the provider saw
 * exactly one request per action key, and that no key is missing.
 */
public final class ScalePart implements BenchPart {

    /** Heap of each node JVM. */
    public static final String NODE_HEAP = "1g";
    public static final String ROLES = "gate,executor";

    @Override
    public String name() {
        return "scale";
    }

    @Override
    public String title() {
        return "partitions and gate instances (nodes in separate JVMs, roles " + ROLES + ")";
    }

    /** What one row measured. */
    public record Measured(String id, int partitions, int instances, List<Integer> partitionsPerNode, int warmup,
                    BrokerRuns.Side side, long providerRequests, int keysWithOneRequest, int missingKeys,
                    int doubledKeys, double loadAverage, CpuAccount.Window cpu, RecordCounts.Budget budget) {

        /** The same row with the CPU its burst cost: the machine's, this JVM's and each node JVM's. */
        public Measured withCpu(CpuAccount.Window window) {
            return new Measured(id, partitions, instances, partitionsPerNode, warmup, side, providerRequests,
                    keysWithOneRequest, missingKeys, doubledKeys, loadAverage, window, budget);
        }

        /** The same row with the records and transaction markers its actions wrote. */
        public Measured withBudget(RecordCounts.Budget counted) {
            return new Measured(id, partitions, instances, partitionsPerNode, warmup, side, providerRequests,
                    keysWithOneRequest, missingKeys, doubledKeys, loadAverage, cpu, counted);
        }
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        List<Measured> measured = new ArrayList<>();
        List<String[]> plan = new ArrayList<>();
        for (int p : o.scalePartitions()) {
            plan.add(new String[] {"s" + p, String.valueOf(p), "1"});
        }
        plan.add(new String[] {"g1", String.valueOf(o.partitions()), "1"});
        plan.add(new String[] {"g2", String.valueOf(o.partitions()), "2"});
        try (Progress.Task task = ctx.progress().start("scale rows", plan.size())) {
            for (String[] row : plan) {
                Measured m = measure(ctx, row[0], Integer.parseInt(row[1]), Integer.parseInt(row[2]));
                measured.add(m);
                check(ctx, m);
                task.advance(1);
            }
        }
        print(ctx.out(), measured, o.brokerActions(), o.rowSeconds());
        List<BenchRow> rows = new ArrayList<>();
        String firstS = measured.get(0).id();
        for (Measured m : measured) {
            String ratioTo = m.id().equals("g2") ? "g1"
                    : m.id().startsWith("s") && !m.id().equals(firstS) ? firstS : null;
            Map<String, String> notes = new LinkedHashMap<>();
            notes.put("partitions", String.valueOf(m.partitions()));
            notes.put("jvms", String.valueOf(m.instances()));
            notes.put("partitions_per_jvm", m.partitionsPerNode().toString());
            notes.put("roles_per_jvm", ROLES);
            notes.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
            notes.put("node_heap", NODE_HEAP);
            notes.put("provider_requests", String.valueOf(m.providerRequests()));
            notes.put("load_avg", String.format(Locale.ROOT, "%.2f", m.loadAverage()));
            if (m.cpu() != null) {
                notes.putAll(m.cpu().notes());
            }
            if (m.budget() != null) {
                notes.put("records_per_action", String.format(Locale.ROOT, "%.2f", m.budget().recordsPerAction()));
                notes.put("markers_per_action", String.format(Locale.ROOT, "%.2f", m.budget().markersPerAction()));
            }
            rows.add(new BenchRow(name(), m.id(), what(m), m.side().actions(), m.side().completed(),
                    m.side().throughput(), BenchRow.Latency.ofSortedNanos(m.side().sortedLatencyNanos()), ratioTo,
                    notes));
        }
        return rows;
    }

    private static String what(Measured m) {
        return m.id().startsWith("s") ? "read-only end to end, 1 JVM, " + m.partitions() + " partitions"
                : "read-only end to end, " + m.instances() + " gate JVM" + (m.instances() > 1 ? "s" : "") + ", "
                        + m.partitions() + " partitions";
    }

    /** Runs one row: fresh topics and application id, its node JVMs, a warm-up, then the measured burst. */
    public static Measured measure(BenchContext ctx, String id, int partitions, int instances) throws Exception {
        BenchOptions o = ctx.options();
        String bootstrap = ctx.bootstrap();
        String app = "bench-" + id + "-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = app + ".";
        JvmNodes.createTopics(bootstrap, prefix, partitions);
        Workload workload = new Workload("T-" + app);
        BrokerRuns.publishPolicy(bootstrap, prefix, workload.policy());
        int n = o.brokerActions();
        int warmup = Math.max(20, Math.min(500, n / 4));
        Path dir = ctx.stateRoot().resolve(app);
        List<NodeJvm> nodes = new ArrayList<>();
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()
                .latency(Duration.ofMillis(o.providerLatencyMs()))) {
            try {
                for (int i = 1; i <= instances; i++) {
                    nodes.add(NodeJvm.start(id + "-node-" + i, ROLES, JvmNodes.settings(bootstrap, prefix, app,
                            dir.resolve("state-" + i), workload, provider.baseUri(), o.nodeSettings()), NODE_HEAP,
                            dir));
                }
                for (NodeJvm node : nodes) {
                    node.awaitReady();
                }
                List<Integer> perNode = JvmNodes.awaitAssigned(nodes, partitions);
                Predicate<byte[]> succeeded = v -> Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, v)
                        .getStatus() == ReceiptStatus.SUCCEEDED;
                String in = Topics.PROPOSALS.name(prefix);
                String out = Topics.RECEIPTS.name(prefix);
                Workload.Encoded warm = workload.proposals("warm", Workload.READ_TOOL, warmup, Instant.now());
                BrokerRuns.measure(bootstrap, in, out, warm, succeeded, null);
                double load = loadAverage();
                Map<String, LongSupplier> jvms = new LinkedHashMap<>();
                for (int i = 0; i < nodes.size(); i++) {
                    jvms.put("node" + (i + 1), nodes.get(i).cpuByGroup());
                }
                if (o.rowSeconds() > 0) {
                    // a steady window, as rows e and f: n actions in flight, timed once they turned over
                    Map<TopicPartition, Long> before = RecordBudget.quiescentEndOffsets(bootstrap, app,
                            BrokerRuns.QUIESCE_TIMEOUT);
                    SteadyLoad.Result r = SteadyLoad.run(bootstrap, in, out, i -> workload.proposals(id + "-" + i,
                            Workload.READ_TOOL, SteadyLoad.CHUNK, Instant.now()), succeeded, null, n,
                            Duration.ofSeconds(o.rowSeconds()), jvms, null, 0);
                    // every action the window produced, its ramp and drain included, against every record and
                    // marker its gates and executors wrote for them: what a second instance adds per action
                    Map<TopicPartition, Long> after = RecordBudget.quiescentEndOffsets(bootstrap, app,
                            BrokerRuns.QUIESCE_TIMEOUT);
                    RecordCounts.Budget budget = RecordBudget.count(bootstrap, r.side().actions(), before, after,
                            Map.of(in, (long) r.side().actions()), t -> BrokerRuns.topicKind(app, t));
                    return effects(id, partitions, instances, perNode, warmup, r.side(), provider, load,
                            List.of(warm.keys(), r.keys())).withCpu(r.cpu()).withBudget(budget);
                }
                Workload.Encoded burst = workload.proposals(id, Workload.READ_TOOL, n, Instant.now());
                CpuAccount.Probe cpu = CpuAccount.start(jvms);
                BrokerRuns.Side side = BrokerRuns.measure(bootstrap, in, out, burst, succeeded, null);
                CpuAccount.Window window = cpu.stop(n);
                return effects(id, partitions, instances, perNode, warmup, side, provider, load,
                        List.of(warm.keys(), burst.keys())).withCpu(window);
            } finally {
                nodes.forEach(NodeJvm::close);
            }
        }
    }

    /** Counts the provider's requests per action key of the warm-up and the measured actions. */
    public static Measured effects(String id, int partitions, int instances, List<Integer> perNode, int warmup,
                            BrokerRuns.Side side, SandboxWebhookProvider provider, double loadAverage,
                            List<List<String>> batches) {
        Map<String, Integer> byKey = provider.requestsByKey();
        int one = 0;
        int missing = 0;
        int doubled = 0;
        for (List<String> batch : batches) {
            for (String key : batch) {
                int requests = byKey.getOrDefault(IdempotencyKeys.derived(key), 0);
                if (requests == 0) {
                    missing++;
                } else if (requests == 1) {
                    one++;
                } else {
                    doubled++;
                }
            }
        }
        return new Measured(id, partitions, instances, perNode, warmup, side, provider.totalRequests(), one,
                missing, doubled, loadAverage, null, null);
    }

    /** The machine's one-minute load average (what else ran), or -1 where the OS has none. */
    public static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    public static void check(BenchContext ctx, Measured m) {
        int keys = m.side().actions() + m.warmup(); // a steady window's side counts every action it produced
        ctx.invariant("row " + m.id() + ": every action SUCCEEDED", m.side().completed() == m.side().actions(),
                m.side().completed() + "/" + m.side().actions());
        ctx.invariant("row " + m.id() + ": exactly one provider request per action key, none missing",
                m.keysWithOneRequest() == keys && m.providerRequests() == keys,
                m.keysWithOneRequest() + " of " + keys + " keys with one request, " + m.missingKeys()
                        + " without, " + m.doubledKeys() + " with more; " + m.providerRequests()
                        + " requests in all (warm-up included)");
    }

    private static void print(PrintStream out, List<Measured> measured, int actions, int rowSeconds) {
        int cores = Runtime.getRuntime().availableProcessors();
        out.printf(Locale.ROOT, "%d actions per row after a warm-up; each node a JVM of its own (-Xmx%s, roles %s)%n",
                actions, NODE_HEAP, ROLES);
        out.printf(Locale.ROOT, "%-4s %-52s %10s %9s %9s %10s %9s %11s %5s%n", "row", "what", "actions/s",
                "p50 ms", "p99 ms", "ratio", "ok", "partitions", "load");
        Map<String, Double> throughput = new LinkedHashMap<>();
        measured.forEach(m -> throughput.put(m.id(), m.side().throughput()));
        String firstS = measured.get(0).id();
        for (Measured m : measured) {
            String ratio = m.id().equals("g2") && throughput.containsKey("g1")
                    ? String.format(Locale.ROOT, "%.2f (g1)", m.side().throughput() / throughput.get("g1"))
                    : m.id().startsWith("s") && !m.id().equals(firstS)
                            ? String.format(Locale.ROOT, "%.2f (%s)", m.side().throughput() / throughput.get(firstS),
                                    firstS)
                            : "";
            out.printf(Locale.ROOT, "%-4s %-52s %10.0f %9.0f %9.0f %10s %9s %11s %5.1f%n", m.id(), what(m),
                    m.side().throughput(), m.side().p(50), m.side().p(99), ratio,
                    m.side().completed() + "/" + m.side().actions(), m.partitionsPerNode(), m.loadAverage());
        }
        for (Measured m : measured) {
            PartTables.cpu(m.id(), m.cpu(), rowSeconds, out);
        }
        for (Measured m : measured) {
            if (m.budget() != null) {
                out.printf(Locale.ROOT, "  %s: %.2f records and %.2f transaction markers per action (%d actions, ramp"
                        + " and drain included)%n", m.id(), m.budget().recordsPerAction(),
                        m.budget().markersPerAction(), m.budget().actions());
            }
        }
        out.printf(Locale.ROOT, "  cpu: %d cores available to this run; the broker, the producer, the receipt watcher,"
                + " the provider and every node JVM share them%n", cores);
        if (cores < 2 * 2) {
            out.println("  with fewer than 2 cores per gate instance (plus the broker's), two instances cannot run"
                    + " twice the work: g2/g1 shows what a second JVM adds on this machine, not how far the gate"
                    + " scales out on separate machines");
        }
        out.println("  ratio: throughput as a multiple of the row in brackets (g2 against g1: goal >= 1.7);"
                + " load: the machine's load average when the row's burst started");
    }
}
