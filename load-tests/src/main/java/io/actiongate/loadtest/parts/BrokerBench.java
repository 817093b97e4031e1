package io.actiongate.loadtest.parts;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateStreams;
import io.actiongate.key.Partitioning;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

import io.actiongate.loadtest.baselines.PassThroughTopology;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.KeyCounts;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.RecordBudget;
import io.actiongate.loadtest.harness.SteadyLoad;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * Part 2: actions end to end on the embedded KRaft broker. BrokerRuns.Side (e) is the baseline: the same proposal bytes
 * through an exactly-once Kafka Streams pass-through ({@link PassThroughTopology}) and back out. BrokerRuns.Side (f) is
 * actiongate's read-only path: gate and executor (one {@link ActiongateNode}, roles gate and executor) with the
 * webhook connector calling a {@link SandboxWebhookProvider}, until the SUCCEEDED receipt. Both sides use the same
 * broker, partition count, producer settings, commit interval and one stream thread, one after the other.
 */
public final class BrokerBench {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerBench.class);
    /**
     * What both sides measured. {@code gateId} is side f's application id (its topic prefix is {@code gateId + "."});
     * {@code budget} the records the gate and executor wrote for the measured actions (warm-up excluded), counted on
     * the broker per topic ({@link RecordBudget}); null when not counted ({@link #countBudget}).
     */
    public record Result(int actions, int warmup, int partitions, BrokerRuns.Side baseline, BrokerRuns.Side gate,
            long providerRequests,
                  boolean misrouted, String gateId, RecordCounts.Budget budget, CpuAccount.Window baselineCpu,
                  CpuAccount.Window gateCpu, Map<String, KeyCounts.Check> gateChecks) {
        public Result {
            gateChecks = gateChecks == null ? Map.of() : java.util.Collections.unmodifiableMap(
                    new java.util.LinkedHashMap<>(gateChecks));
        }

        public Result(int actions, int warmup, int partitions, BrokerRuns.Side baseline, BrokerRuns.Side gate,
                long providerRequests,
               boolean misrouted, String gateId, RecordCounts.Budget budget) {
            this(actions, warmup, partitions, baseline, gate, providerRequests, misrouted, gateId, budget, null, null,
                    Map.of());
        }

        /** Every action of both sides completed and the provider saw exactly one request per gate action. */
        public boolean complete() {
            return baseline.completed() == baseline.actions() && gate.completed() == gate.actions()
                    && providerRequests == gate.actions() + warmup;
        }
    }

    private final int actions;
    private final int partitions;
    private final Path stateRoot;
    private final int warmup;
    private final Map<String, String> nodeSettings;
    private final boolean misroute;
    private Duration providerLatency = Duration.ZERO;
    private Progress.Task task;
    private boolean countBudget = true;
    private Duration rowTime = Duration.ZERO;

    public BrokerBench(int actions, int partitions, Path stateRoot) {
        this(actions, partitions, stateRoot, Map.of(), false);
    }

    /**
     * {@code nodeSettings} go over the benchmark's own settings of the actiongate node (side f only); with
     * {@code misroute} side f produces every proposal to a partition other than its key's murmur2 home.
     */
    public BrokerBench(int actions, int partitions, Path stateRoot, Map<String, String> nodeSettings,
            boolean misroute) {
        this.nodeSettings = Map.copyOf(nodeSettings);
        this.misroute = misroute;
        this.actions = actions;
        this.partitions = partitions;
        this.stateRoot = stateRoot;
        this.warmup = Math.max(20, Math.min(500, actions / 4));
    }

    /** The loopback provider's service time per effect request (the benchmark's {@code --provider-latency-ms}). */
    public BrokerBench providerLatency(Duration latency) {
        this.providerLatency = latency;
        return this;
    }

    /**
     * Times each side for {@code time} with {@code actions} in flight ({@link SteadyLoad}) instead of one burst of
     * {@code actions}; zero keeps the burst.
     */
    public BrokerBench rowTime(Duration time) {
        this.rowTime = time;
        return this;
    }

    /** Reports completed actions (warm-ups included, both sides) to {@code task}; see {@link #progressTotal()}. */
    public BrokerBench progress(Progress.Task task) {
        this.task = task;
        return this;
    }

    /** Whether side f counts its {@link RecordBudget} (default true; a few seconds of quiet waiting and reading). */
    public BrokerBench countBudget(boolean count) {
        this.countBudget = count;
        return this;
    }

    /** The units {@link #progress} counts to: every action of both sides, warm-ups included. */
    public long progressTotal() {
        return rowTime.isZero() ? 2L * (actions + warmup) : 0;
    }

    /** Runs both sides on the broker at {@code bootstrap}, one after the other. */
    public Result run(String bootstrap) throws Exception {
        Timed baseline = baseline(bootstrap);
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start().latency(providerLatency)) {
            GateRun gate = gate(bootstrap, provider);
            Map<String, KeyCounts.Check> checks = new java.util.LinkedHashMap<>();
            if (!gate.keys().isEmpty()) {
                checks.putAll(BrokerRuns.perKeyChecks(bootstrap, gate.id() + ".", gate.keys(), provider));
            }
            return new Result(gate.side().actions(), warmup, partitions, baseline.side(), gate.side(),
                    provider.totalRequests(), misroute, gate.id(), gate.budget(), baseline.cpu(), gate.cpu(), checks);
        }
    }

    /** Row f alone (part postgres's row fs): its side, CPU and per-key checks. */
    public record GateOnly(BrokerRuns.Side side, CpuAccount.Window cpu, Map<String, KeyCounts.Check> checks,
            long providerRequests) {
    }

    /** Runs side f alone (warm-up, then the timed part) on the broker at {@code bootstrap}. */
    public GateOnly runGate(String bootstrap) throws Exception {
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start().latency(providerLatency)) {
            GateRun gate = gate(bootstrap, provider);
            return new GateOnly(gate.side(), gate.cpu(), BrokerRuns.perKeyChecks(bootstrap, gate.id() + ".",
                    gate.keys(),
                    provider), provider.totalRequests());
        }
    }

    /** What a side measured, its CPU (null in burst mode) and the keys it produced (steady mode). */
    private record Timed(BrokerRuns.Side side, CpuAccount.Window cpu, List<String> keys) {
    }

    private record GateRun(String id, BrokerRuns.Side side, RecordCounts.Budget budget, CpuAccount.Window cpu,
                           List<String> keys) {
    }

    /**
     * One side's timed part: a burst of {@code actions} (zero {@link #rowTime}), or a {@link SteadyLoad} window of
     * {@link #rowTime} with {@code actions} in flight, chunks of {@code prefix}-numbered proposals.
     */
    private Timed timed(String bootstrap, String in, String out, Workload workload, String prefix,
                        Predicate<byte[]> done, ToIntFunction<String> partition, long progressBase) throws Exception {
        if (rowTime.isZero()) {
            Workload.Encoded burst = workload.proposals(prefix, Workload.READ_TOOL, actions, Instant.now());
            BrokerRuns.Side side = BrokerRuns.measure(bootstrap, in, out, burst, done, partition, task, progressBase);
            return new Timed(side, null, burst.keys());
        }
        SteadyLoad.Result r = SteadyLoad.run(bootstrap, in, out, i -> workload.proposals(prefix + i,
                        Workload.READ_TOOL, SteadyLoad.CHUNK, Instant.now()), done, partition, actions, rowTime,
                Map.of(), task, progressBase);
        return new Timed(r.side(), r.cpu(), r.keys());
    }

    private Timed baseline(String bootstrap) throws Exception {
        String id = "bench-base-" + UUID.randomUUID().toString().substring(0, 8);
        String in = id + ".in";
        String out = id + ".out";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(in, partitions, (short) 1), new NewTopic(out, partitions,
                    (short) 1))).all().get();
        }
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, id);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateRoot.resolve(id)).toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // the gate's own Streams defaults (commit interval, task idling), so both sides wait alike
        p.putAll(GateStreams.STREAMS_DEFAULTS);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        Workload workload = new Workload("T-" + id);
        try (KafkaStreams streams = new KafkaStreams(PassThroughTopology.build(in, out), p)) {
            streams.start();
            BrokerRuns.awaitRunning(streams::state);
            Predicate<byte[]> any = v -> true;
            BrokerRuns.measure(bootstrap, in, out,
                    workload.proposals("warm", Workload.READ_TOOL, warmup, Instant.now()), any,
                    null, task, 0);
            return timed(bootstrap, in, out, workload, "e", any, null, warmup);
        }
    }

    private GateRun gate(String bootstrap, SandboxWebhookProvider provider) throws Exception {
        String id = "bench-gate-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = id + ".";
        Workload workload = new Workload("T-" + id);
        ActiongateNode node = BrokerRuns.startNode(bootstrap, id, stateRoot, partitions, workload, provider,
                nodeSettings,
                "gate,executor");
        try (node) {
            Predicate<byte[]> succeeded = v -> Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, v)
                    .getStatus() == ReceiptStatus.SUCCEEDED;
            String in = Topics.PROPOSALS.name(prefix);
            String out = Topics.RECEIPTS.name(prefix);
            ToIntFunction<String> partition = misroute ? this::awayFromHome : null;
            long base = actions + warmup;
            BrokerRuns.measure(bootstrap, in, out,
                    workload.proposals("warm", Workload.READ_TOOL, warmup, Instant.now()),
                    succeeded, partition, task, base);
            // the budget: end offsets once the warm-up's last transactions are in, and again after the burst's
            Map<org.apache.kafka.common.TopicPartition, Long> before = countBudget
                    ? RecordBudget.quiescentEndOffsets(bootstrap, id, BrokerRuns.QUIESCE_TIMEOUT) : Map.of();
            Timed timed = timed(bootstrap, in, out, workload, "f", succeeded, partition, base + warmup);
            BrokerRuns.Side side = timed.side();
            RecordCounts.Budget budget = null;
            if (countBudget) {
                try {
                    Map<org.apache.kafka.common.TopicPartition, Long> after = RecordBudget.quiescentEndOffsets(
                            bootstrap, id, BrokerRuns.QUIESCE_TIMEOUT);
                    budget = RecordBudget.count(bootstrap, side.actions(), before, after,
                            Map.of(in, (long) side.actions()),
                            topic -> BrokerRuns.topicKind(id, topic));
                } catch (RuntimeException e) {
                    // the rows stand without it; the report says the budget was not counted
                    LOG.warn("records per action of row f not counted: {}", e.toString());
                }
            }
            return new GateRun(id, side, budget, timed.cpu(), timed.keys());
        }
    }

    /** The partition after {@code key}'s murmur2 home: never the one the gate would pick (with 2+ partitions). */
    private int awayFromHome(String key) {
        return (Partitioning.home(key, partitions) + 1) % partitions;
    }
}
