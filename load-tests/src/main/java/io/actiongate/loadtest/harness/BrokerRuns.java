package io.actiongate.loadtest.harness;

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

import io.actiongate.loadtest.report.Stats;

/**
 * What every broker row shares: the producers, the burst measurement ({@link #measure}), row f's node
 * ({@link #startNode}) and the per-key invariants of a read-only row. Row e and f themselves are {@code BrokerBench}.
 */
public final class BrokerRuns {

    private BrokerRuns() {
    }

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    /** How long a row that counts its {@link RecordBudget} waits for the last transactions, before and after. */
    public static final Duration QUIESCE_TIMEOUT = Duration.ofSeconds(15);
    /** The gate's own default commit interval, for every Streams application of the run (baseline included). */
    public static final String COMMIT_INTERVAL_MS = GateStreams.STREAMS_DEFAULTS.get(
            StreamsConfig.COMMIT_INTERVAL_MS_CONFIG);
    private static final java.util.concurrent.atomic.AtomicInteger PRODUCERS = new java.util.concurrent.atomic.AtomicInteger();

    /** What one side measured. */
    public record Side(int actions, int completed, double throughput, long[] sortedLatencyNanos) {
        /** Percentile latency in milliseconds over the completed actions (NaN when none completed). */
        public double p(double percentile) {
            return sortedLatencyNanos.length == 0 ? Double.NaN
                    : Stats.percentileOfSorted(sortedLatencyNanos, percentile) / 1e6;
        }
    }

    /**
     * The per-key invariants of a read-only row over {@code keys}: one reservation on the attempts
     * topic, one provider request (by the derived Idempotency-Key), one terminal receipt per action.
     */
    public static Map<String, KeyCounts.Check> perKeyChecks(String bootstrap, String prefix, List<String> keys,
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
    public static boolean terminal(ReceiptStatus status) {
        return switch (status) {
            case SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED -> true;
            case WAITING_APPROVAL, APPROVED, DISPATCHING, UNKNOWN -> false;
        };
    }

    /** What a topic of the gate deployment {@code id} is, for {@link RecordBudget}. */
    public static String topicKind(String id, String topic) {
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

    /**
     * Row f's actiongate node, for the parts that measure it under other loads: creates the topics under
     * {@code id + "."} with {@code partitions} each, publishes {@code workload}'s policy and starts a node with
     * {@code roles} whose webhook connector calls {@code provider}, with {@code nodeSettings} over the benchmark's
     * own settings; returns once the node is ready.
     */
    public static ActiongateNode startNode(String bootstrap, String id, Path stateRoot, int partitions,
            Workload workload,
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

    /**
     * Produces {@code records} at once and waits for each key's first output that {@code done} accepts; each record
     * goes to {@code partition} of its key when given, else where the producer's default partitioner puts it.
     */
    public static Side measure(String bootstrap, String in, String out, Workload.Encoded records,
                        Predicate<byte[]> done, ToIntFunction<String> partition) throws Exception {
        return measure(bootstrap, in, out, records, done, partition, null, 0);
    }

    /** As above, setting {@code task} (when not null) to {@code progressBase} + the keys done so far. */
    public static Side measure(String bootstrap, String in, String out, Workload.Encoded records,
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

    public static KafkaProducer<String, byte[]> producer(String bootstrap) {
        return producer(bootstrap, CpuAccount.LOAD_CLIENT_ID);
    }

    /** As {@link #producer(String)} with {@code clientId}, which names its network thread for {@link CpuAccount}. */
    public static KafkaProducer<String, byte[]> producer(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-" + PRODUCERS.incrementAndGet());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    public static void publishPolicy(String bootstrap, String prefix, Map<String, PolicyRecord> policy)
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

    public static void awaitRunning(java.util.function.Supplier<KafkaStreams.State> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (state.get() != KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > deadline || state.get() == KafkaStreams.State.ERROR) {
                throw new IllegalStateException("streams not RUNNING: " + state.get());
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
