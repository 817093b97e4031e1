package io.actiongate.loadtest;

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

/**
 * Part 2: actions end to end on the embedded KRaft broker. Side (e) is the baseline: the same proposal bytes
 * through an exactly-once Kafka Streams pass-through ({@link PassThroughTopology}) and back out. Side (f) is
 * actiongate's read-only path: gate and executor (one {@link ActiongateNode}, roles gate and executor) with the
 * webhook connector calling a {@link SandboxWebhookProvider}, until the SUCCEEDED receipt. Both sides use the same
 * broker, partition count, producer settings, commit interval and one stream thread, one after the other.
 */
final class BrokerBench {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerBench.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    /** How long a row that counts its {@link RecordBudget} waits for the last transactions, before and after. */
    static final Duration QUIESCE_TIMEOUT = Duration.ofSeconds(15);
    /** The gate's own default commit interval, for every Streams application of the run (baseline included). */
    static final String COMMIT_INTERVAL_MS = GateStreams.STREAMS_DEFAULTS.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG);
    private static final java.util.concurrent.atomic.AtomicInteger PRODUCERS = new java.util.concurrent.atomic.AtomicInteger();

    /** What one side measured. */
    record Side(int actions, int completed, double throughput, long[] sortedLatencyNanos) {
        /** Percentile latency in milliseconds over the completed actions (NaN when none completed). */
        double p(double percentile) {
            return sortedLatencyNanos.length == 0 ? Double.NaN
                    : Stats.percentileOfSorted(sortedLatencyNanos, percentile) / 1e6;
        }
    }

    /**
     * What both sides measured. {@code gateId} is side f's application id (its topic prefix is {@code gateId + "."});
     * {@code budget} the records the gate and executor wrote for the measured actions (warm-up excluded), counted on
     * the broker per topic ({@link RecordBudget}); null when not counted ({@link #countBudget}).
     */
    record Result(int actions, int warmup, int partitions, Side baseline, Side gate, long providerRequests,
                  boolean misrouted, String gateId, RecordBudget.Budget budget, CpuAccount.Window baselineCpu,
                  CpuAccount.Window gateCpu, Map<String, KeyCounts.Check> gateChecks) {
        Result {
            gateChecks = gateChecks == null ? Map.of() : java.util.Collections.unmodifiableMap(
                    new java.util.LinkedHashMap<>(gateChecks));
        }

        Result(int actions, int warmup, int partitions, Side baseline, Side gate, long providerRequests,
               boolean misrouted, String gateId, RecordBudget.Budget budget) {
            this(actions, warmup, partitions, baseline, gate, providerRequests, misrouted, gateId, budget, null, null,
                    Map.of());
        }

        /** Every action of both sides completed and the provider saw exactly one request per gate action. */
        boolean complete() {
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

    BrokerBench(int actions, int partitions, Path stateRoot) {
        this(actions, partitions, stateRoot, Map.of(), false);
    }

    /**
     * {@code nodeSettings} go over the benchmark's own settings of the actiongate node (side f only); with
     * {@code misroute} side f produces every proposal to a partition other than its key's murmur2 home.
     */
    BrokerBench(int actions, int partitions, Path stateRoot, Map<String, String> nodeSettings, boolean misroute) {
        this.nodeSettings = Map.copyOf(nodeSettings);
        this.misroute = misroute;
        this.actions = actions;
        this.partitions = partitions;
        this.stateRoot = stateRoot;
        this.warmup = Math.max(20, Math.min(500, actions / 4));
    }

    /** The loopback provider's service time per effect request (the benchmark's {@code --provider-latency-ms}). */
    BrokerBench providerLatency(Duration latency) {
        this.providerLatency = latency;
        return this;
    }

    /**
     * Times each side for {@code time} with {@code actions} in flight ({@link SteadyLoad}) instead of one burst of
     * {@code actions}; zero keeps the burst.
     */
    BrokerBench rowTime(Duration time) {
        this.rowTime = time;
        return this;
    }

    /** Reports completed actions (warm-ups included, both sides) to {@code task}; see {@link #progressTotal()}. */
    BrokerBench progress(Progress.Task task) {
        this.task = task;
        return this;
    }

    /** Whether side f counts its {@link RecordBudget} (default true; a few seconds of quiet waiting and reading). */
    BrokerBench countBudget(boolean count) {
        this.countBudget = count;
        return this;
    }

    /** The units {@link #progress} counts to: every action of both sides, warm-ups included. */
    long progressTotal() {
        return rowTime.isZero() ? 2L * (actions + warmup) : 0;
    }

    /** Runs both sides on the broker at {@code bootstrap}, one after the other. */
    Result run(String bootstrap) throws Exception {
        Timed baseline = baseline(bootstrap);
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start().latency(providerLatency)) {
            GateRun gate = gate(bootstrap, provider);
            Map<String, KeyCounts.Check> checks = new java.util.LinkedHashMap<>();
            if (!gate.keys().isEmpty()) {
                checks.putAll(perKeyChecks(bootstrap, gate.id() + ".", gate.keys(), provider));
            }
            return new Result(gate.side().actions(), warmup, partitions, baseline.side(), gate.side(),
                    provider.totalRequests(), misroute, gate.id(), gate.budget(), baseline.cpu(), gate.cpu(), checks);
        }
    }

    /** Row f alone (part postgres's row fs): its side, CPU and per-key checks. */
    record GateOnly(Side side, CpuAccount.Window cpu, Map<String, KeyCounts.Check> checks, long providerRequests) {
    }

    /** Runs side f alone (warm-up, then the timed part) on the broker at {@code bootstrap}. */
    GateOnly runGate(String bootstrap) throws Exception {
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start().latency(providerLatency)) {
            GateRun gate = gate(bootstrap, provider);
            return new GateOnly(gate.side(), gate.cpu(), perKeyChecks(bootstrap, gate.id() + ".", gate.keys(),
                    provider), provider.totalRequests());
        }
    }

    /** What a side measured, its CPU (null in burst mode) and the keys it produced (steady mode). */
    private record Timed(Side side, CpuAccount.Window cpu, List<String> keys) {
    }

    private record GateRun(String id, Side side, RecordBudget.Budget budget, CpuAccount.Window cpu,
                           List<String> keys) {
    }

    /**
     * The per-key invariants of a read-only row over {@code keys}: one reservation on the attempts
     * topic, one provider request (by the derived Idempotency-Key), one terminal receipt per action.
     */
    static Map<String, KeyCounts.Check> perKeyChecks(String bootstrap, String prefix, List<String> keys,
                                                     SandboxWebhookProvider provider) {
        Map<String, KeyCounts.Check> checks = new java.util.LinkedHashMap<>();
        checks.put("reservation", KeyCounts.exactlyOnce(keys,
                KeyCounts.count(bootstrap, Topics.ATTEMPTS.name(prefix), v -> true)));
        Map<String, Integer> requests = provider.requestsByKey();
        Map<String, Integer> byActionKey = new HashMap<>();
        for (String key : keys) {
            byActionKey.put(key, requests.getOrDefault(
                    io.actiongate.gate.IdempotencyKeys.derived(key), 0));
        }
        checks.put("provider request", KeyCounts.exactlyOnce(keys, byActionKey));
        checks.put("terminal receipt", KeyCounts.exactlyOnce(keys, KeyCounts.count(bootstrap,
                Topics.RECEIPTS.name(prefix), v -> terminal(Topics.RECEIPTS.valueSerde().deserializer()
                        .deserialize(null, v).getStatus()))));
        return checks;
    }

    /** A receipt status no later receipt of the action follows. */
    static boolean terminal(ReceiptStatus status) {
        return switch (status) {
            case SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED -> true;
            case WAITING_APPROVAL, APPROVED, DISPATCHING, UNKNOWN -> false;
        };
    }

    /**
     * One side's timed part: a burst of {@code actions} (zero {@link #rowTime}), or a {@link SteadyLoad} window of
     * {@link #rowTime} with {@code actions} in flight, chunks of {@code prefix}-numbered proposals.
     */
    private Timed timed(String bootstrap, String in, String out, Workload workload, String prefix,
                        Predicate<byte[]> done, ToIntFunction<String> partition, long progressBase) throws Exception {
        if (rowTime.isZero()) {
            Workload.Encoded burst = workload.proposals(prefix, Workload.READ_TOOL, actions, Instant.now());
            Side side = measure(bootstrap, in, out, burst, done, partition, task, progressBase);
            return new Timed(side, null, burst.keys());
        }
        SteadyLoad.Result r = SteadyLoad.run(bootstrap, in, out, i -> workload.proposals(prefix + i,
                        Workload.READ_TOOL, SteadyLoad.CHUNK, Instant.now()), done, partition, actions, rowTime,
                Map.of(), task, progressBase);
        return new Timed(r.side(), r.cpu(), r.keys());
    }

    /** What a topic of the gate deployment {@code id} is, for {@link RecordBudget}. */
    static String topicKind(String id, String topic) {
        if (topic.equals(Topics.PROPOSALS.name(id + "."))) {
            return "input";
        }
        if (topic.startsWith(id + ".")) {
            return "contract";
        }
        if (topic.endsWith("-changelog")) {
            return "changelog";
        }
        return topic.endsWith("-repartition") ? "repartition" : "internal";
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
            awaitRunning(streams::state);
            Predicate<byte[]> any = v -> true;
            measure(bootstrap, in, out, workload.proposals("warm", Workload.READ_TOOL, warmup, Instant.now()), any,
                    null, task, 0);
            return timed(bootstrap, in, out, workload, "e", any, null, warmup);
        }
    }

    private GateRun gate(String bootstrap, SandboxWebhookProvider provider) throws Exception {
        String id = "bench-gate-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = id + ".";
        Workload workload = new Workload("T-" + id);
        try (ActiongateNode node = startNode(bootstrap, id, stateRoot, partitions, workload, provider, nodeSettings,
                "gate,executor")) {
            Predicate<byte[]> succeeded = v -> Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, v)
                    .getStatus() == ReceiptStatus.SUCCEEDED;
            String in = Topics.PROPOSALS.name(prefix);
            String out = Topics.RECEIPTS.name(prefix);
            ToIntFunction<String> partition = misroute ? this::awayFromHome : null;
            long base = actions + warmup;
            measure(bootstrap, in, out, workload.proposals("warm", Workload.READ_TOOL, warmup, Instant.now()),
                    succeeded, partition, task, base);
            // the budget: end offsets once the warm-up's last transactions are in, and again after the burst's
            Map<org.apache.kafka.common.TopicPartition, Long> before = countBudget
                    ? RecordBudget.quiescentEndOffsets(bootstrap, id, QUIESCE_TIMEOUT) : Map.of();
            Timed timed = timed(bootstrap, in, out, workload, "f", succeeded, partition, base + warmup);
            Side side = timed.side();
            RecordBudget.Budget budget = null;
            if (countBudget) {
                try {
                    Map<org.apache.kafka.common.TopicPartition, Long> after = RecordBudget.quiescentEndOffsets(
                            bootstrap, id, QUIESCE_TIMEOUT);
                    budget = RecordBudget.count(bootstrap, side.actions(), before, after,
                            Map.of(in, (long) side.actions()),
                            topic -> topicKind(id, topic));
                } catch (RuntimeException e) {
                    // the rows stand without it; the report says the budget was not counted
                    LOG.warn("records per action of row f not counted: {}", e.toString());
                }
            }
            return new GateRun(id, side, budget, timed.cpu(), timed.keys());
        }
    }

    /**
     * Row f's actiongate node, for the parts that measure it under other loads: creates the topics under
     * {@code id + "."} with {@code partitions} each, publishes {@code workload}'s policy and starts a node with
     * {@code roles} whose webhook connector calls {@code provider}, with {@code nodeSettings} over the benchmark's
     * own settings; returns once the node is ready.
     */
    static ActiongateNode startNode(String bootstrap, String id, Path stateRoot, int partitions, Workload workload,
                                    SandboxWebhookProvider provider, Map<String, String> nodeSettings, String roles)
            throws Exception {
        String prefix = id + ".";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(prefix, partitions, (short) 1));
        }
        publishPolicy(bootstrap, prefix, workload.policy());
        Map<String, String> config = new HashMap<>(workload.gateSettings());
        config.put(GateConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(GateConfig.TOPIC_PREFIX_CONFIG, prefix);
        config.put(GateConfig.APPLICATION_ID_CONFIG, id);
        config.put(GateConfig.STATE_DIR_CONFIG, Files.createDirectories(stateRoot.resolve(id)).toString());
        config.put(GateConfig.STREAMS_PREFIX + StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        config.put("executor.group.id", id + "-executor");
        config.put("executor.id", id + "-executor"); // names its clients' threads for CpuAccount
        config.put("http.port", "0");
        config.put("http.bind.address", "127.0.0.1");
        config.put("connectors.webhook.base-url", provider.baseUri().toString());
        config.put("connectors.webhook.operations", Workload.SEND_TOOL);
        config.put("connectors.webhook.read-operations", Workload.READ_TOOL);
        config.put("connectors.webhook.response-timeout-ms", "10000");
        config.putAll(nodeSettings);
        ActiongateNode node = ActiongateNode.start(config, Role.parse(roles));
        try {
            awaitReady(node);
            return node;
        } catch (Exception | Error e) {
            node.close();
            throw e;
        }
    }

    /** The partition after {@code key}'s murmur2 home: never the one the gate would pick (with 2+ partitions). */
    private int awayFromHome(String key) {
        return (Partitioning.home(key, partitions) + 1) % partitions;
    }

    /**
     * Produces {@code records} at once and waits for each key's first output that {@code done} accepts; each record
     * goes to {@code partition} of its key when given, else where the producer's default partitioner puts it.
     */
    static Side measure(String bootstrap, String in, String out, Workload.Encoded records,
                        Predicate<byte[]> done, ToIntFunction<String> partition) throws Exception {
        return measure(bootstrap, in, out, records, done, partition, null, 0);
    }

    /** As above, setting {@code task} (when not null) to {@code progressBase} + the keys done so far. */
    static Side measure(String bootstrap, String in, String out, Workload.Encoded records,
                                Predicate<byte[]> done, ToIntFunction<String> partition, Progress.Task task,
                                long progressBase) throws Exception {
        int n = records.size();
        Duration timeout = Duration.ofSeconds(60).plusMillis(100L * n);
        try (OutputWatcher watcher = OutputWatcher.start(bootstrap, out, records.keys(), done);
             KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            long[] sentAt = new long[n];
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sentAt[i] = System.nanoTime();
                String key = records.keys().get(i);
                producer.send(partition == null ? new ProducerRecord<>(in, key, records.values().get(i))
                        : new ProducerRecord<>(in, partition.applyAsInt(key), key, records.values().get(i)));
            }
            producer.flush();
            await(watcher, timeout, task, progressBase);
            long[] doneAt = watcher.doneAt();
            List<Long> latencies = new ArrayList<>(n);
            long last = start;
            for (int i = 0; i < n; i++) {
                if (doneAt[i] != 0) {
                    latencies.add(doneAt[i] - sentAt[i]);
                    last = Math.max(last, doneAt[i]);
                }
            }
            long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            double throughput = sorted.length == 0 ? 0 : sorted.length * 1e9 / (last - start);
            return new Side(n, sorted.length, throughput, sorted);
        }
    }

    private static void await(OutputWatcher watcher, Duration timeout, Progress.Task task, long progressBase)
            throws InterruptedException {
        if (task == null) {
            watcher.awaitAll(timeout);
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        int total = watcher.doneAt().length;
        while (watcher.completed() < total && System.nanoTime() < deadline) {
            watcher.awaitAll(Duration.ofMillis(200));
            task.set(progressBase + watcher.completed());
        }
    }

    static KafkaProducer<String, byte[]> producer(String bootstrap) {
        return producer(bootstrap, CpuAccount.LOAD_CLIENT_ID);
    }

    /** As {@link #producer(String)} with {@code clientId}, which names its network thread for {@link CpuAccount}. */
    static KafkaProducer<String, byte[]> producer(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-" + PRODUCERS.incrementAndGet());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    static void publishPolicy(String bootstrap, String prefix, Map<String, PolicyRecord> policy)
            throws Exception {
        try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            policy.forEach((key, record) -> acks.add(producer.send(new ProducerRecord<>(Topics.POLICY.name(prefix),
                    key, Topics.POLICY.valueSerde().serializer().serialize(null, record)))));
            producer.flush();
            for (java.util.concurrent.Future<?> ack : acks) {
                ack.get();
            }
        }
    }

    private static void awaitRunning(java.util.function.Supplier<KafkaStreams.State> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (state.get() != KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > deadline || state.get() == KafkaStreams.State.ERROR) {
                throw new IllegalStateException("baseline streams not RUNNING: " + state.get());
            }
            Thread.sleep(50);
        }
    }

    private static void awaitReady(ActiongateNode node) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!node.ready()) {
            if (System.nanoTime() > deadline || node.failure().isPresent()) {
                throw new IllegalStateException("actiongate node not ready: " + node.failure().orElse("timeout"));
            }
            Thread.sleep(50);
        }
    }
}
