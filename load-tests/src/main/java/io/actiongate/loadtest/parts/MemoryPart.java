package io.actiongate.loadtest.parts;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.gate.GateConfig;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.JvmNodes;
import io.actiongate.loadtest.harness.NodeJvm;
import io.actiongate.loadtest.harness.OutputWatcher;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.BenchRow;

/**
 * Part "memory", row {@code m}: the gate's heap and resident memory with {@code --memory-actions} actions retained in
 * its stores. The gate runs alone in a JVM of its own (role gate, {@code -Xmx}{@value #GATE_HEAP}); this JVM feeds it
 * that many proposals for the HUMAN-approval tool, so every action stays WAITING_APPROVAL, and counts their receipts.
 * Once all are admitted it asks the gate for its heap after a full GC and reads its VmRSS from /proc, then stops it
 * and measures its state directory on disk. An executor (in this JVM) watches the attempts with the loopback provider
 * behind it: none may reach it. The row's throughput is the admission rate (proposals to WAITING_APPROVAL receipts).
 */
public final class MemoryPart implements BenchPart {

    public static final String GATE_HEAP = "512m";
    public static final long GOAL_HEAP_MIB = 512;
    private static final int CHUNK = 10_000;
    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(300);

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String title() {
        return "gate heap and RSS with retained actions (gate alone in a JVM, -Xmx" + GATE_HEAP + ")";
    }

    /** What row m measured. */
    public record Measured(int actions, int partitions, long admitted, long otherReceipts, long attempts,
                    long providerRequests, double admissionRate, double produceRate, NodeJvm.Memory idle,
                    NodeJvm.Memory memory, long storeBytes) {
        public static double mib(long bytes) {
            return bytes / (1024.0 * 1024.0);
        }
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        Measured m = measure(ctx, ctx.options().memoryActions(), ctx.options().partitions());
        check(ctx, m);
        print(ctx.out(), m, ctx.options().nodeSettings().getOrDefault(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, "0"));
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("heap_mib", String.format(Locale.ROOT, "%.1f", Measured.mib(m.memory().heapUsed())));
        notes.put("rss_mib", String.format(Locale.ROOT, "%.1f", Measured.mib(m.memory().rss())));
        notes.put("store_mib", String.format(Locale.ROOT, "%.1f", Measured.mib(m.storeBytes())));
        notes.put("xmx", GATE_HEAP);
        notes.put("idle_heap_mib", String.format(Locale.ROOT, "%.1f", Measured.mib(m.idle().heapUsed())));
        notes.put("idle_rss_mib", String.format(Locale.ROOT, "%.1f", Measured.mib(m.idle().rss())));
        notes.put("heap_committed_mib", String.format(Locale.ROOT, "%.1f", Measured.mib(m.memory().heapCommitted())));
        notes.put("partitions", String.valueOf(m.partitions()));
        notes.put("produce_per_s", String.format(Locale.ROOT, "%.0f", m.produceRate()));
        notes.put(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, ctx.options().nodeSettings()
                .getOrDefault(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, "0"));
        notes.put("load_avg", String.format(Locale.ROOT, "%.2f", ScalePart.loadAverage()));
        return List.of(new BenchRow(name(), "m", "retained WAITING_APPROVAL actions: gate heap after GC, RSS",
                m.actions(), (int) m.admitted(), m.admissionRate(), null, null, notes));
    }

    public static Measured measure(BenchContext ctx, int n, int partitions) throws Exception {
        BenchOptions o = ctx.options();
        String bootstrap = ctx.bootstrap();
        String app = "bench-m-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = app + ".";
        JvmNodes.createTopics(bootstrap, prefix, partitions);
        Workload workload = new Workload("T-" + app);
        BrokerRuns.publishPolicy(bootstrap, prefix, workload.policy());
        Path dir = ctx.stateRoot().resolve(app);
        Path gateState = dir.resolve("gate-state");
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()
                .latency(Duration.ofMillis(o.providerLatencyMs()))) {
            Map<String, String> gateSettings = JvmNodes.settings(bootstrap, prefix, app, gateState, workload,
                    provider.baseUri(), o.nodeSettings());
            // nothing may expire while the run lasts: each action is meant to stay WAITING_APPROVAL
            gateSettings.putIfAbsent(GateConfig.APPROVAL_TIMEOUT_CONFIG, "7d");
            Map<String, String> executorSettings = JvmNodes.settings(bootstrap, prefix, app,
                    dir.resolve("executor-state"), workload, provider.baseUri(), o.nodeSettings());
            NodeJvm.Memory idle;
            NodeJvm.Memory memory;
            ReceiptCounter counter = null;
            double admissionRate;
            double produceRate;
            ActiongateNode executor = ActiongateNode.start(executorSettings, Role.parse("executor"));
            try (executor; NodeJvm gate = NodeJvm.start("m-gate", "gate", gateSettings, GATE_HEAP, dir)) {
                gate.awaitReady();
                JvmNodes.awaitAssigned(List.of(gate), partitions);
                idle = gate.memory(); // the same gate before its first action: what the retained actions add
                counter = ReceiptCounter.start(bootstrap, Topics.RECEIPTS.name(prefix), workload.taskId(), n);
                try (Progress.Task task = ctx.progress().start("row m: proposals WAITING_APPROVAL", n)) {
                    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
                    AtomicLong producedNanos = new AtomicLong();
                    long start = System.nanoTime();
                    Thread producer = new Thread(() -> {
                        try {
                            produce(bootstrap, Topics.PROPOSALS.name(prefix), workload, n);
                            producedNanos.set(System.nanoTime());
                        } catch (Throwable e) {
                            producerFailure.set(e);
                        }
                    }, "bench-memory-producer");
                    producer.setDaemon(true);
                    producer.start();
                    long lastCount = -1;
                    long lastChange = System.nanoTime();
                    while (counter.admitted() < n) {
                        if (producerFailure.get() != null) {
                            throw new IllegalStateException("producing the proposals failed", producerFailure.get());
                        }
                        long count = counter.admitted();
                        if (count != lastCount) {
                            lastCount = count;
                            lastChange = System.nanoTime();
                            task.set(count);
                        } else if (System.nanoTime() - lastChange > STALL_TIMEOUT.toNanos()) {
                            break; // the invariant below reports how many are missing
                        }
                        gate.status(); // throws when the gate JVM died
                        Thread.sleep(500);
                    }
                    task.set(counter.admitted());
                    long end = counter.lastAdmittedNanos();
                    admissionRate = counter.admitted() * 1e9 / Math.max(1, end - start);
                    producer.join(60_000);
                    produceRate = producedNanos.get() == 0 ? 0 : n * 1e9 / (producedNanos.get() - start);
                }
                memory = gate.memory();
            } finally {
                if (counter != null) {
                    counter.close();
                }
            }
            long attempts = countRecords(bootstrap, Topics.ATTEMPTS.name(prefix));
            return new Measured(n, partitions, counter.admitted(), counter.others(), attempts,
                    provider.totalRequests(), admissionRate, produceRate, idle, memory, sizeOf(gateState));
        }
    }

    /** Sends {@code n} proposals for the HUMAN-approval tool, encoded in chunks so they never all sit in memory. */
    private static void produce(String bootstrap, String topic, Workload workload, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        Instant at = Instant.now();
        var serializer = Topics.PROPOSALS.valueSerde().serializer();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
                new ByteArraySerializer())) {
            for (int from = 0; from < n; from += CHUNK) {
                int to = Math.min(n, from + CHUNK);
                String[] keys = new String[to - from];
                byte[][] values = new byte[to - from][];
                for (int i = from; i < to; i++) {
                    String call = Workload.callId("m", i);
                    keys[i - from] = workload.key(call);
                    values[i - from] = serializer.serialize(null, workload.proposal(call, Workload.SEND_TOOL, i, at));
                }
                for (int i = 0; i < keys.length; i++) {
                    producer.send(new ProducerRecord<>(topic, keys[i], values[i]));
                }
            }
            producer.flush();
        }
    }

    /** Records on {@code topic}, read_committed from the beginning to its end. */
    public static long countRecords(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            long count = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                count += consumer.poll(Duration.ofMillis(200)).count();
            }
            return count;
        }
    }

    public static long sizeOf(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // removed while walking (a compaction)
                }
            }).sum();
        }
    }

    public static void check(BenchContext ctx, Measured m) {
        ctx.invariant("row m: every action WAITING_APPROVAL (none lost)", m.admitted() == m.actions(),
                m.admitted() + "/" + m.actions());
        ctx.invariant("row m: none dispatched (no other receipt, no reservation, no provider request)",
                m.otherReceipts() == 0 && m.attempts() == 0 && m.providerRequests() == 0,
                m.otherReceipts() + " receipts in another state, " + m.attempts() + " attempt records, "
                        + m.providerRequests() + " provider requests");
        ctx.invariant("row m: the gate's heap and RSS were read", m.memory().heapUsed() > 0 && m.memory().rss() > 0,
                "heap " + m.memory().heapUsed() + " B, RSS " + m.memory().rss() + " B");
    }

    private static void print(PrintStream out, Measured m, String rocksDbBound) {
        out.printf(Locale.ROOT, "%d proposals for the HUMAN-approval tool, %d partitions; the gate alone in a JVM "
                + "(role gate, -Xmx%s)%n", m.actions(), m.partitions(), GATE_HEAP);
        out.printf(Locale.ROOT, "%-4s %-44s %12s %10s %10s %10s %12s%n", "row", "what", "admitted/s", "heap MiB",
                "RSS MiB", "store MiB", "ok");
        out.printf(Locale.ROOT, "%-4s %-44s %12.0f %10.1f %10.1f %10.1f %12s%n", "m",
                "retained WAITING_APPROVAL actions", m.admissionRate(), Measured.mib(m.memory().heapUsed()),
                Measured.mib(m.memory().rss()), Measured.mib(m.storeBytes()), m.admitted() + "/" + m.actions());
        out.printf(Locale.ROOT, "  heap: used after a full GC (System.gc() in the gate JVM), committed %.1f MiB; goal"
                + " <= %d MiB%n", Measured.mib(m.memory().heapCommitted()), GOAL_HEAP_MIB);
        out.printf(Locale.ROOT, "  the same gate before its first action: heap %.1f MiB, RSS %.1f MiB%n",
                Measured.mib(m.idle().heapUsed()), Measured.mib(m.idle().rss()));
        out.println("  RSS: VmRSS of the gate JVM (heap, RocksDB's block caches and memtables, metaspace, threads);"
                + " store: its state directory on disk after it stopped");
        out.println("  " + GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG + "=" + rocksDbBound
                + ("0".equals(rocksDbBound) ? " (Kafka Streams' per-store RocksDB defaults)"
                        : " (one shared block cache and memtable budget)") + ", load average now "
                + String.format(Locale.ROOT, "%.2f", ScalePart.loadAverage()));
        out.printf(Locale.ROOT, "  admitted/s: proposals to WAITING_APPROVAL receipts; the producer sent %.0f/s%n",
                m.produceRate());
    }

    /** Counts, per action index, the first WAITING_APPROVAL receipt of this run's task, and every other receipt. */
    public static final class ReceiptCounter implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final String taskId;
        private final BitSet seen;
        private final AtomicLong admitted = new AtomicLong();
        private final AtomicLong others = new AtomicLong();
        private volatile long lastAdmittedNanos;
        private volatile boolean running = true;
        private final Thread thread;

        private ReceiptCounter(String bootstrap, String topic, String taskId, int n) {
            this.taskId = taskId;
            this.seen = new BitSet(n);
            this.consumer = OutputWatcher.committedReader(bootstrap, topic, false,
                    Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000));
            this.thread = new Thread(this::loop, "bench-memory-receipts");
            this.thread.setDaemon(true);
        }

        public static ReceiptCounter start(String bootstrap, String topic, String taskId, int n) {
            ReceiptCounter c = new ReceiptCounter(bootstrap, topic, taskId, n);
            c.thread.start();
            return c;
        }

        private void loop() {
            var deserializer = Topics.RECEIPTS.valueSerde().deserializer();
            String prefix = "m-";
            try {
                while (running) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        Receipt receipt = deserializer.deserialize(null, r.value());
                        String call = receipt.getToolCallId();
                        if (!taskId.equals(receipt.getTaskId()) || !call.startsWith(prefix)) {
                            continue;
                        }
                        if (receipt.getStatus() != ReceiptStatus.WAITING_APPROVAL) {
                            others.incrementAndGet();
                            continue;
                        }
                        int i = Integer.parseInt(call.substring(prefix.length()));
                        if (!seen.get(i)) {
                            seen.set(i);
                            lastAdmittedNanos = System.nanoTime();
                            admitted.incrementAndGet();
                        }
                    }
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
            }
        }

        public long admitted() {
            return admitted.get();
        }

        public long others() {
            return others.get();
        }

        public long lastAdmittedNanos() {
            return lastAdmittedNanos;
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
}
