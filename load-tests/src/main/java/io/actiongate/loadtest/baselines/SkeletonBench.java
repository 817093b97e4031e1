package io.actiongate.loadtest.baselines;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.baseline.postgres.PgClaimService;
import io.actiongate.gate.GateStreams;
import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.KeyCounts;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.SteadyLoad;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * Row sk, the skeleton: the shape of row f with stub logic, the floor this design reaches on this
 * machine. Proposals go through a one-thread exactly-once Streams application with one logged, cached RocksDB store
 * (actions) and an in-memory, unlogged timer index, as the gate has; per proposal it writes an action state, puts
 * the lease into the index and writes the DISPATCHING receipt and a reservation; a stub executor (a consumer of the
 * reservations, a dispatch pool of {@code executor.dispatch.threads}, the JDK HTTP client) calls the same loopback
 * provider and produces an outcome; the Streams application then writes the settled state, drops the lease from the
 * index and writes the SUCCEEDED receipt. That is row f's record mix, {@link ReadOnlyRecordMix#CURRENT} (the
 * description the gate's {@code RecordsPerActionTest} pins: 6 records per action, 2 receipts, reservation, outcome,
 * 2 action-changelog entries, no timer changelog) with the sizes row f's records had ({@link Sizes}), and no
 * checks, parsing, digests, policy or fencing at all: values are opaque bytes.
 */
public final class SkeletonBench {

    private static final Logger LOG = LoggerFactory.getLogger(SkeletonBench.class);
    public static final String ACTIONS_STORE = "skeleton-actions";
    public static final String TIMER_INDEX = "skeleton-timer-index";
    /** The record mix the skeleton writes per action: the gate's. */
    public static final ReadOnlyRecordMix MIX = ReadOnlyRecordMix.CURRENT;
    /** The first byte of a receipt value: its status, so the watcher needs no decoding. */
    public static final byte DISPATCHING = 'D';
    public static final byte SUCCEEDED = 'S';

    /**
     * Bytes of a {@code gate-actions} changelog entry of row f (key included) when its budget is not at hand: row
     * f's in the run of 2 December 2026 (action state layout 2, Avro binary; the JSON layout 1 took 1,098).
     */
    public static final int ACTION_STATE_BYTES = 499;

    /**
     * Value bytes per record kind (row f's, from its budget when counted; else the same run's figures: receipt 296,
     * reservation 416, outcome 161).
     */
    public record Sizes(int actionState, int receipt, int attempt, int outcome) {
        public static final Sizes DEFAULT = new Sizes(ACTION_STATE_BYTES, 296, 416, 161);

        /** From row f's measured budget: its bytes per record by topic (key bytes included, as the budget has). */
        public static Sizes of(RecordCounts.Budget budget) {
            if (budget == null) {
                return DEFAULT;
            }
            int actions = DEFAULT.actionState;
            int receipts = DEFAULT.receipt;
            int attempts = DEFAULT.attempt;
            int outcomes = DEFAULT.outcome;
            for (RecordCounts.TopicCount t : budget.topics()) {
                int bytes = (int) Math.round(t.bytesPerRecord());
                if (bytes <= 0) {
                    continue;
                }
                String topic = t.topic();
                if (topic.endsWith("-gate-actions-changelog")) {
                    actions = bytes;
                } else if (topic.endsWith(".receipts")) {
                    receipts = bytes;
                } else if (topic.endsWith(".attempts")) {
                    attempts = bytes;
                } else if (topic.endsWith(".outcomes")) {
                    outcomes = bytes;
                }
            }
            return new Sizes(actions, receipts, attempts, outcomes);
        }
    }

    /** What the row measured. */
    public record Result(BrokerRuns.Side side, CpuAccount.Window cpu, Map<String, KeyCounts.Check> checks, int warmup,
                  long providerRequests, Sizes sizes) {
    }

    private final int window;
    private final int partitions;
    private final Path stateRoot;
    private final int dispatchThreads;
    private final int maxPollRecords;
    private final Duration providerLatency;
    private final Duration rowTime;
    private final Sizes sizes;
    private final int warmup;

    public SkeletonBench(int window, int partitions, Path stateRoot, int dispatchThreads, int maxPollRecords,
                  Duration providerLatency, Duration rowTime, Sizes sizes) {
        this.window = window;
        this.partitions = partitions;
        this.stateRoot = stateRoot;
        this.dispatchThreads = dispatchThreads;
        this.maxPollRecords = maxPollRecords;
        this.providerLatency = providerLatency;
        this.rowTime = rowTime;
        this.sizes = sizes;
        this.warmup = Math.max(20, Math.min(500, window / 4));
    }

    /** The skeleton's topology over topics {@code prefix + proposals, outcomes, receipts, attempts}. */
    public static Topology topology(String prefix, Sizes sizes) {
        Topology t = new Topology();
        t.addSource("proposals", Serdes.String().deserializer(), Serdes.ByteArray().deserializer(),
                Topics.PROPOSALS.name(prefix));
        t.addSource("outcomes", Serdes.String().deserializer(), Serdes.ByteArray().deserializer(),
                Topics.OUTCOMES.name(prefix));
        t.addProcessor("propose", () -> new Propose(sizes), "proposals");
        t.addProcessor("settle", () -> new Settle(sizes), "outcomes");
        // as GateStores.actions() and GateStores.timerIndex(): logged and cached, in memory and unlogged
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ACTIONS_STORE), Serdes.String(),
                Serdes.ByteArray()).withCachingEnabled(), "propose", "settle");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(TIMER_INDEX), Serdes.String(),
                Serdes.String()).withLoggingDisabled(), "propose", "settle");
        t.addSink("receipts", Topics.RECEIPTS.name(prefix), Serdes.String().serializer(),
                Serdes.ByteArray().serializer(), "propose", "settle");
        t.addSink("attempts", Topics.ATTEMPTS.name(prefix), Serdes.String().serializer(),
                Serdes.ByteArray().serializer(), "propose");
        return t;
    }

    private static byte[] filled(int size, int first) {
        byte[] b = new byte[Math.max(1, size)];
        java.util.Arrays.fill(b, (byte) 'x');
        b[0] = (byte) first;
        return b;
    }

    /** Proposal: state, lease into the timer index, DISPATCHING, reservation. */
    private static final class Propose implements Processor<String, byte[], String, byte[]> {
        private final Sizes sizes;
        private ProcessorContext<String, byte[]> ctx;
        private KeyValueStore<String, byte[]> actions;
        private KeyValueStore<String, String> timers;

        public Propose(Sizes sizes) {
            this.sizes = sizes;
        }

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.ctx = context;
            this.actions = context.getStateStore(ACTIONS_STORE);
            this.timers = context.getStateStore(TIMER_INDEX);
        }

        @Override
        public void process(Record<String, byte[]> r) {
            actions.put(r.key(), filled(sizes.actionState() - r.key().length(), DISPATCHING));
            timers.put("lease|" + r.key(), r.key());
            ctx.forward(r.withValue(filled(sizes.receipt() - r.key().length(), DISPATCHING)), "receipts");
            ctx.forward(r.withValue(filled(sizes.attempt() - r.key().length(), 'R')), "attempts");
        }
    }

    /** Outcome: settled state, lease out of the timer index, SUCCEEDED (the purge is a scan: no record). */
    private static final class Settle implements Processor<String, byte[], String, byte[]> {
        private final Sizes sizes;
        private ProcessorContext<String, byte[]> ctx;
        private KeyValueStore<String, byte[]> actions;
        private KeyValueStore<String, String> timers;

        public Settle(Sizes sizes) {
            this.sizes = sizes;
        }

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.ctx = context;
            this.actions = context.getStateStore(ACTIONS_STORE);
            this.timers = context.getStateStore(TIMER_INDEX);
        }

        @Override
        public void process(Record<String, byte[]> r) {
            actions.put(r.key(), filled(sizes.actionState() - r.key().length(), SUCCEEDED));
            timers.delete("lease|" + r.key());
            ctx.forward(r.withValue(filled(sizes.receipt() - r.key().length(), SUCCEEDED)), "receipts");
        }
    }

    /** Runs the row on the broker at {@code bootstrap}: warm-up burst, then a {@link SteadyLoad} window. */
    public Result run(String bootstrap, Progress.Task task) throws Exception {
        String id = "bench-skel-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = id + ".";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<NewTopic> topics = new ArrayList<>();
            for (TopicSpec<?, ?> spec : List.of(Topics.PROPOSALS, Topics.OUTCOMES, Topics.RECEIPTS, Topics.ATTEMPTS)) {
                topics.add(new NewTopic(spec.name(prefix), partitions, (short) 1));
            }
            admin.createTopics(topics).all().get();
        }
        Properties p = new Properties();
        p.putAll(GateStreams.STREAMS_DEFAULTS);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, id);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateRoot.resolve(id)).toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        Workload workload = new Workload("T-" + id);
        Predicate<byte[]> succeeded = v -> v.length > 0 && v[0] == SUCCEEDED;
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start().latency(providerLatency);
             KafkaStreams streams = new KafkaStreams(topology(prefix, sizes), p)) {
            StubExecutor executor = StubExecutor.start(bootstrap, prefix, id + "-executor", provider.baseUri(),
                    dispatchThreads, maxPollRecords, sizes);
            try (executor) {
                streams.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (streams.state() != KafkaStreams.State.RUNNING) {
                    if (System.nanoTime() > deadline || streams.state() == KafkaStreams.State.ERROR) {
                        throw new IllegalStateException("skeleton streams not RUNNING: " + streams.state());
                    }
                    Thread.sleep(50);
                }
                String in = Topics.PROPOSALS.name(prefix);
                String out = Topics.RECEIPTS.name(prefix);
                BrokerRuns.measure(bootstrap, in, out, workload.proposals("warm", Workload.READ_TOOL, warmup,
                        Instant.now()), succeeded, null, task, 0);
                SteadyLoad.Result r = SteadyLoad.run(bootstrap, in, out, i -> workload.proposals("sk" + i,
                        Workload.READ_TOOL, SteadyLoad.CHUNK, Instant.now()), succeeded, null, window, rowTime,
                        Map.of(), task, warmup);
                Map<String, KeyCounts.Check> checks = new java.util.LinkedHashMap<>();
                checks.put("reservation", KeyCounts.exactlyOnce(r.keys(),
                        KeyCounts.count(bootstrap, Topics.ATTEMPTS.name(prefix), v -> true)));
                Map<String, Integer> requests = provider.requestsByKey();
                Map<String, Integer> byKey = new HashMap<>();
                r.keys().forEach(k -> byKey.put(k, requests.getOrDefault(IdempotencyKeys.derived(k), 0)));
                checks.put("provider request", KeyCounts.exactlyOnce(r.keys(), byKey));
                checks.put("terminal receipt", KeyCounts.exactlyOnce(r.keys(), KeyCounts.count(bootstrap, out,
                        succeeded)));
                return new Result(r.side(), r.cpu(), checks, warmup, provider.totalRequests(), sizes);
            }
        }
    }

    /**
     * The stub executor: reservations in, one POST each to the provider (Idempotency-Key derived from the action
     * key, as the gate's), an outcome out; offsets committed every commit interval below the lowest record not yet
     * done (at least once). No fencing, no decoding, no retries.
     */
    public static final class StubExecutor implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final KafkaProducer<String, byte[]> producer;
        private final HttpClient http;
        private final ExecutorService pool;
        private final Semaphore slots;
        private final URI target;
        private final String outcomes;
        private final byte[] outcome;
        private final Map<TopicPartition, PgClaimService.Offsets> offsets = new ConcurrentHashMap<>();
        private final AtomicLong failures = new AtomicLong();
        private final Thread thread;
        private volatile boolean running = true;

        private StubExecutor(String bootstrap, String prefix, String group, URI provider, int threads,
                             int maxPollRecords, Sizes sizes) {
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            c.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-consumer");
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
            this.consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
            this.consumer.subscribe(List.of(Topics.ATTEMPTS.name(prefix)));
            this.producer = BrokerRuns.producer(bootstrap, group);
            AtomicInteger n = new AtomicInteger();
            this.pool = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "skeleton-executor-dispatch-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            this.slots = new Semaphore(threads);
            this.target = provider.resolve("/" + Workload.READ_TOOL);
            this.outcomes = Topics.OUTCOMES.name(prefix);
            this.outcome = filled(sizes.outcome(), 'O');
            this.thread = new Thread(this::loop, "skeleton-executor-poll");
            this.thread.setDaemon(true);
        }

        public static StubExecutor start(String bootstrap, String prefix, String group, URI provider, int threads,
                                  int maxPollRecords, Sizes sizes) {
            StubExecutor e = new StubExecutor(bootstrap, prefix, group, provider, threads, maxPollRecords, sizes);
            e.thread.start();
            return e;
        }

        private void loop() {
            long lastCommit = 0;
            long interval = Long.parseLong(BrokerRuns.COMMIT_INTERVAL_MS);
            try {
                while (running) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(10))) {
                        while (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            if (!running) {
                                return;
                            }
                        }
                        PgClaimService.Offsets o = offsets.computeIfAbsent(new TopicPartition(r.topic(),
                                r.partition()), tp -> new PgClaimService.Offsets());
                        o.submitted(r.offset());
                        pool.execute(() -> dispatch(r, o));
                    }
                    if (System.currentTimeMillis() - lastCommit >= interval) {
                        lastCommit = System.currentTimeMillis();
                        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                        offsets.forEach((tp, o) -> commit.put(tp, new OffsetAndMetadata(o.commitPosition())));
                        if (!commit.isEmpty()) {
                            consumer.commitAsync(commit, null);
                        }
                    }
                }
            } catch (WakeupException e) {
                // closing
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                consumer.close();
            }
        }

        private void dispatch(ConsumerRecord<String, byte[]> r, PgClaimService.Offsets o) {
            boolean released = false;
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(target)
                                .header("Idempotency-Key", IdempotencyKeys.derived(r.key()))
                                .header("Content-Type", "application/json")
                                .timeout(Duration.ofSeconds(10))
                                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() / 100 != 2) {
                    failures.incrementAndGet();
                }
                slots.release();
                released = true;
                producer.send(new ProducerRecord<>(outcomes, r.key(), outcome), (m, e) -> {
                    if (e != null) {
                        failures.incrementAndGet();
                    }
                    o.done(r.offset());
                });
            } catch (Exception e) {
                failures.incrementAndGet();
                LOG.warn("skeleton dispatch of {} failed: {}", r.key(), e.toString());
                o.done(r.offset());
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            } finally {
                if (!released) {
                    slots.release();
                }
            }
        }

        public long failures() {
            return failures.get();
        }

        @Override
        public void close() {
            running = false;
            consumer.wakeup();
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            pool.shutdownNow();
            producer.close(Duration.ofSeconds(10));
        }
    }
}
