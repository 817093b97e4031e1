package io.actiongate.loadtest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.broker.EmbeddedKafkaBroker;
import io.actiongate.gate.GateConfig;
import io.actiongate.key.Partitioning;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

import io.actiongate.loadtest.harness.Drivers;
import io.actiongate.loadtest.harness.OutputWatcher;
import io.actiongate.loadtest.harness.Workload;

/**
 * Latency at light load: one read-only action at a time, proposal → {@code SUCCEEDED} receipt, through an in-process
 * node (gate, executor, reconciler, as {@code actiongate dev} runs them) on the embedded broker, with the settings
 * {@code dev} gives the node ({@code DevStack.devDefaults}: the ones that touch timing are repeated here). Prints
 * p50/p95/max end to end and the same for each stage, read from the timestamps the records carry:
 *
 * <ol>
 *   <li>{@code admit}: send → the gate's {@code DISPATCHING} receipt ({@code updated_at}): the proposal's produce
 *       and the gate's fetch and processing;</li>
 *   <li>{@code to-dispatch}: → the attempt's {@code started_at}: the gate's transaction commit, the executor's
 *       {@code read_committed} fetch and its offset commit (the fence);</li>
 *   <li>{@code provider}: → {@code finished_at}: the loopback HTTP call;</li>
 *   <li>{@code to-settle}: → the {@code SUCCEEDED} receipt's {@code updated_at}: the outcome's produce and the gate's
 *       fetch of it;</li>
 *   <li>{@code to-reader}: → the receipt seen by a {@code read_committed} consumer: the gate's transaction commit
 *       and the reader's fetch.</li>
 * </ol>
 * Stage times have millisecond resolution (the records' timestamps); all clocks are this JVM's. Between actions it
 * waits a random 0..{@code --gap-ms} so the sends do not lock onto the commit interval's phase.
 *
 * <pre>
 * java -cp load-tests/target/actiongate-load-tests-*-bench.jar io.actiongate.loadtest.LightLoadLatency \
 *      [--actions 100] [--gap-ms 100] [--partitions 12] [--misroute] [--set key=value ...] [--reader key=value ...]
 * </pre>
 * {@code --set} overrides a node setting, {@code --reader} a setting of the measuring receipts consumer (it starts
 * from Kafka's consumer defaults plus {@code read_committed}, like a user's consumer); {@code --misroute} produces
 * every proposal off its key's murmur2 home, as a librdkafka client would, so each takes the gate's hop.
 */
public final class LightLoadLatency {

    private static final Duration ACTION_TIMEOUT = Duration.ofSeconds(30);
    private static final String[] STAGES = {"admit", "to-dispatch", "provider", "to-settle", "to-reader"};

    private LightLoadLatency() {
    }

    /** The settings of {@code DevStack.devDefaults} that shape timing (the rest are connectors and credentials). */
    public static Map<String, String> devTimingSettings() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("executor.dispatch.threads", "4");
        d.put("reconciler.backoff.initial", "500ms");
        d.put("reconciler.backoff.max", "5s");
        d.put("connectors.webhook.response-timeout-ms", "2000");
        return d;
    }

    public static void main(String[] args) throws Exception {
        int actions = 100;
        int gapMs = 100;
        int partitions = Topics.DEFAULT_PARTITIONS;
        boolean misroute = false;
        Map<String, String> settings = new LinkedHashMap<>();
        Map<String, String> reader = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--actions" -> actions = Integer.parseInt(args[++i]);
                case "--gap-ms" -> gapMs = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--set" -> put(settings, args[++i]);
                case "--reader" -> put(reader, args[++i]);
                case "--misroute" -> misroute = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-bench.xml"); // io.actiongate at WARN
        }
        Path state = Files.createTempDirectory("actiongate-latency-");
        try {
            run(actions, gapMs, partitions, misroute, settings, reader, state);
        } finally {
            Drivers.deleteQuietly(state);
        }
        System.exit(0);
    }

    private static void put(Map<String, String> into, String kv) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("expected key=value: " + kv);
        }
        into.put(kv.substring(0, eq), kv.substring(eq + 1));
    }

    public static void run(int actions, int gapMs, int partitions, boolean misroute, Map<String, String> settings,
                    Map<String, String> reader, Path stateRoot) throws Exception {
        System.out.printf(Locale.ROOT, "actiongate light-load latency, %s, load avg %.2f%n", Instant.now(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(stateRoot.resolve("broker")).start();
             SandboxWebhookProvider provider = SandboxWebhookProvider.start()) {
            String bootstrap = broker.bootstrapServers();
            String id = "latency-" + UUID.randomUUID().toString().substring(0, 8);
            String prefix = id + ".";
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(prefix, partitions, (short) 1));
            }
            Workload workload = new Workload("T-" + id);
            publishPolicy(bootstrap, prefix, workload.policy());
            Map<String, String> config = new HashMap<>(workload.gateSettings());
            config.putAll(devTimingSettings());
            config.put(GateConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(GateConfig.TOPIC_PREFIX_CONFIG, prefix);
            config.put(GateConfig.APPLICATION_ID_CONFIG, id);
            config.put(GateConfig.STATE_DIR_CONFIG, Files.createDirectories(stateRoot.resolve(id)).toString());
            config.put("http.port", "0");
            config.put("http.bind.address", "127.0.0.1");
            config.put("connectors.webhook.base-url", provider.baseUri().toString());
            config.put("connectors.webhook.operations", Workload.SEND_TOOL);
            config.put("connectors.webhook.read-operations", Workload.READ_TOOL);
            config.putAll(settings);
            System.out.println("node settings over the defaults: " + new java.util.TreeMap<>(settings));
            System.out.println("reader settings over Kafka's consumer defaults (+ read_committed): " + reader
                    + (misroute ? "; every proposal produced to the partition after its murmur2 home (one hop)" : ""));
            try (ActiongateNode node = ActiongateNode.start(config, Role.parse("all"));
                 Reader receipts = new Reader(bootstrap, Topics.RECEIPTS.name(prefix), reader);
                 KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
                awaitReady(node);
                String topic = Topics.PROPOSALS.name(prefix);
                Random random = new Random(13);
                int warmup = Math.max(10, actions / 5);
                Workload.Encoded warm = workload.proposals("warm", Workload.READ_TOOL, warmup, Instant.now());
                for (int i = 0; i < warmup; i++) {
                    one(producer, receipts, topic, partition(warm.keys().get(i), partitions, misroute),
                            warm.keys().get(i), warm.values().get(i));
                    Thread.sleep(random.nextInt(gapMs + 1));
                }
                Workload.Encoded measured = workload.proposals("l", Workload.READ_TOOL, actions, Instant.now());
                List<Sample> samples = new ArrayList<>();
                for (int i = 0; i < actions; i++) {
                    samples.add(one(producer, receipts, topic, partition(measured.keys().get(i), partitions, misroute),
                            measured.keys().get(i), measured.values().get(i)));
                    Thread.sleep(random.nextInt(gapMs + 1));
                }
                print(samples, warmup, provider.totalRequests());
            }
        }
    }

    /** The key's murmur2 home, or with {@code misroute} the partition after it; null lets the producer choose. */
    private static Integer partition(String key, int partitions, boolean misroute) {
        if (!misroute) {
            return null;
        }
        return (Partitioning.home(key, partitions) + 1) % partitions;
    }

    /** Sends one proposal (to {@code partition} when given) and waits for its SUCCEEDED receipt. */
    private static Sample one(KafkaProducer<String, byte[]> producer, Reader receipts, String topic,
                              Integer partition, String key, byte[] value) throws Exception {
        receipts.expect(key);
        long sentNanos = System.nanoTime();
        long sentMillis = System.currentTimeMillis();
        producer.send(new ProducerRecord<>(topic, partition, key, value));
        Seen done = receipts.await(ACTION_TIMEOUT);
        if (done == null) {
            throw new IllegalStateException("no SUCCEEDED receipt for " + key + " within " + ACTION_TIMEOUT);
        }
        AttemptSummary attempt = done.succeeded.getAttempts().get(done.succeeded.getAttempts().size() - 1);
        long admitted = done.dispatching == null ? sentMillis : done.dispatching.getUpdatedAt().toEpochMilli();
        long started = attempt.getStartedAt().toEpochMilli();
        long finished = attempt.getFinishedAt().toEpochMilli();
        long settled = done.succeeded.getUpdatedAt().toEpochMilli();
        long[] stages = {admitted - sentMillis, started - admitted, finished - started, settled - finished,
            done.seenMillis - settled};
        return new Sample((done.seenNanos - sentNanos) / 1e6, stages);
    }

    private static void print(List<Sample> samples, int warmup, long providerRequests) {
        int n = samples.size();
        double[] total = samples.stream().mapToDouble(Sample::totalMs).sorted().toArray();
        System.out.printf(Locale.ROOT, "%d actions one at a time (after %d warm-up), provider requests %d%n", n,
                warmup, providerRequests);
        System.out.printf(Locale.ROOT, "%-34s %8s %8s %8s %8s%n", "proposal -> SUCCEEDED receipt (ms)", "p50",
                "p95", "max", "mean");
        System.out.printf(Locale.ROOT, "%-34s %8.1f %8.1f %8.1f %8.1f%n", "end to end", pct(total, 50),
                pct(total, 95), total[n - 1], mean(total));
        for (int s = 0; s < STAGES.length; s++) {
            int stage = s;
            double[] values = samples.stream().mapToDouble(x -> x.stagesMs()[stage]).sorted().toArray();
            System.out.printf(Locale.ROOT, "  %-32s %8.1f %8.1f %8.1f %8.1f%n", STAGES[s], pct(values, 50),
                    pct(values, 95), values[n - 1], mean(values));
        }
        System.out.printf(Locale.ROOT, "load avg %.2f at the end%n",
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static double pct(double[] sorted, double p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    private record Sample(double totalMs, long[] stagesMs) {
    }

    private record Seen(Receipt dispatching, Receipt succeeded, long seenNanos, long seenMillis) {
    }

    /** A read_committed receipts consumer that reports the DISPATCHING and SUCCEEDED receipts of one key. */
    private static final class Reader implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final Thread thread;
        private final BlockingQueue<Seen> done = new ArrayBlockingQueue<>(1);
        private volatile String expected;
        private volatile Receipt dispatching;
        private volatile boolean running = true;

        public Reader(String bootstrap, String topic, Map<String, String> overrides) {
            consumer = OutputWatcher.committedReader(bootstrap, topic, true, overrides);
            thread = new Thread(this::loop, "latency-receipts");
            thread.setDaemon(true);
            thread.start();
        }

        public void expect(String key) {
            dispatching = null;
            done.clear();
            expected = key;
        }

        public Seen await(Duration timeout) throws InterruptedException {
            return done.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void loop() {
            try {
                while (running) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        long nanos = System.nanoTime();
                        long millis = System.currentTimeMillis();
                        if (r.value() == null || !r.key().equals(expected)) {
                            continue;
                        }
                        Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(r.topic(),
                                r.value());
                        if (receipt.getStatus() == ReceiptStatus.DISPATCHING) {
                            dispatching = receipt;
                        } else if (receipt.getStatus() == ReceiptStatus.SUCCEEDED) {
                            done.offer(new Seen(dispatching, receipt, nanos, millis));
                        }
                    }
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            }
        }

        @Override
        public void close() {
            running = false;
            consumer.wakeup();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    private static void publishPolicy(String bootstrap, String prefix, Map<String, PolicyRecord> policy)
            throws Exception {
        try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            for (Map.Entry<String, PolicyRecord> e : policy.entrySet()) {
                producer.send(new ProducerRecord<>(Topics.POLICY.name(prefix), e.getKey(),
                        Topics.POLICY.valueSerde().serializer().serialize(null, e.getValue()))).get();
            }
        }
    }

    private static void awaitReady(ActiongateNode node) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!node.ready()) {
            if (System.nanoTime() > deadline || node.failure().isPresent()) {
                throw new IllegalStateException("actiongate node not ready: " + node.failure().orElse("timeout"));
            }
            Thread.sleep(50);
        }
    }
}
