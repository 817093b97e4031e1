package io.actiongate.loadtest.parts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.RecordBudget;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * The broker's transactional produce rate for actiongate's records: one transactional producer ({@code acks=all},
 * idempotent) writes, per simulated action, the records actiongate wrote per action ({@link RecordCounts.Budget}):
 * for every topic it wrote, that many records (fractions carried over from action to action) of that topic's
 * average key and value size, to a topic with that topic's partition count, keyed per action like actiongate's,
 * committing a transaction every {@value #COMMIT_INTERVAL_MS} ms like the Streams commit interval of row f. Records
 * per second divided by records per action is the physical limit in actions per second: what the broker allows
 * actiongate's writes on this machine, with no processing at all.
 */
public final class PhysicalBench {

    public static final long COMMIT_INTERVAL_MS = Long.parseLong(BrokerRuns.COMMIT_INTERVAL_MS);
    public static final int LINGER_MS = 5;

    /**
     * What one run measured.
     *
     * @param actions      simulated actions in the measured phase
     * @param records      records sent in the measured phase
     * @param seconds      from the measured phase's first send to its last commit
     * @param transactions transactions committed in the measured phase
     * @param sent         records sent in all (warm-up included)
     * @param committed    records read back with read_committed from the topics written (warm-up included)
     * @param failed       sends that completed with an error (the first one in {@code firstError})
     * @param budget       the budget reproduced
     */
    public record Result(long actions, long records, double seconds, long transactions, long sent, long committed,
                  long failed, String firstError, RecordCounts.Budget budget, List<String> topics) {

        public double recordsPerSecond() {
            return seconds > 0 ? records / seconds : 0;
        }

        /** The physical limit: records per second divided by actiongate's records per action. */
        public double actionsPerSecond() {
            return recordsPerSecond() / budget.recordsPerAction();
        }

        /** Every record sent was acknowledged and is readable with read_committed. */
        public boolean allCommitted() {
            return failed == 0 && committed == sent;
        }
    }

    private final RecordCounts.Budget budget;
    private final long minActions;
    private final Duration minDuration;
    private final Duration warmup;
    private Progress.Task task;

    /**
     * Writes at least {@code minActions} simulated actions and for at least {@code minDuration}, after
     * {@code warmup} of the same (counted for the invariant only).
     */
    public PhysicalBench(RecordCounts.Budget budget, long minActions, Duration minDuration, Duration warmup) {
        if (budget.written().isEmpty()) {
            throw new IllegalArgumentException("the budget holds no records to reproduce");
        }
        this.budget = budget;
        this.minActions = minActions;
        this.minDuration = minDuration;
        this.warmup = warmup;
    }

    /** Counts measured actions into {@code task}. */
    public PhysicalBench progress(Progress.Task task) {
        this.task = task;
        return this;
    }

    public Result run(String bootstrap) throws Exception {
        String id = "bench-phys-" + UUID.randomUUID().toString().substring(0, 8);
        List<Stream> streams = new ArrayList<>();
        Random random = new Random(42);
        for (RecordCounts.TopicCount t : budget.written()) {
            String name = id + "." + suffix(t.topic());
            byte[] value = new byte[(int) Math.round(t.valueBytesPerRecord())];
            random.nextBytes(value);
            streams.add(new Stream(name, t.partitions(), budget.perAction(t),
                    Math.max(1, (int) Math.round(t.keyBytesPerRecord())), value));
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(streams.stream().map(s -> new NewTopic(s.topic, s.partitions, (short) 1)).toList())
                    .all().get();
        }
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        Callback callback = (metadata, e) -> {
            if (e != null) {
                failed.incrementAndGet();
                firstError.compareAndSet(null, e.toString());
            }
        };
        long sentBefore;
        Phase measured;
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, id)) {
            producer.initTransactions();
            Phase warm = phase(producer, streams, 0, 0, warmup, callback, null);
            sentBefore = warm.records;
            measured = phase(producer, streams, warm.actions, minActions, minDuration, callback, task);
        }
        long sent = sentBefore + measured.records;
        Map<org.apache.kafka.common.TopicPartition, Long> ends = RecordBudget.endOffsets(bootstrap, id + ".");
        RecordCounts.Budget readBack = RecordBudget.count(bootstrap, 1, Map.of(), ends, Map.of(), t -> "physical");
        long committed = readBack.topics().stream().mapToLong(RecordCounts.TopicCount::records).sum();
        return new Result(measured.actions, measured.records, measured.nanos / 1e9, measured.transactions, sent,
                committed, failed.get(), firstError.get(), budget, streams.stream().map(s -> s.topic).toList());
    }

    private record Phase(long actions, long records, long transactions, long nanos) {
    }

    /** One topic to write and how much of it each action writes. */
    private static final class Stream {
        public final String topic;
        public final int partitions;
        public final double perAction;
        public final int keyBytes;
        public final byte[] value;
        double carry;

        public Stream(String topic, int partitions, double perAction, int keyBytes, byte[] value) {
            this.topic = topic;
            this.partitions = partitions;
            this.perAction = perAction;
            this.keyBytes = keyBytes;
            this.value = value;
        }
    }

    /** Writes actions until at least {@code minActions} and {@code minDuration} are done, committing on cadence. */
    private static Phase phase(KafkaProducer<byte[], byte[]> producer, List<Stream> streams, long firstAction,
                               long minActions, Duration minDuration, Callback callback, Progress.Task task) {
        long start = System.nanoTime();
        long end = start + minDuration.toNanos();
        long commitEvery = COMMIT_INTERVAL_MS * 1_000_000L;
        long actions = 0;
        long records = 0;
        long transactions = 0;
        if (minActions <= 0 && minDuration.isZero()) {
            return new Phase(0, 0, 0, 0);
        }
        producer.beginTransaction();
        long txStart = start;
        while (true) {
            long action = firstAction + actions;
            for (Stream s : streams) {
                s.carry += s.perAction;
                if (s.carry >= 1) {
                    byte[] key = key(action, s.keyBytes);
                    while (s.carry >= 1) {
                        producer.send(new ProducerRecord<>(s.topic, key, s.value), callback);
                        s.carry -= 1;
                        records++;
                    }
                }
            }
            actions++;
            long now = System.nanoTime();
            if (task != null && (actions & 63) == 0) {
                task.set(actions);
            }
            boolean done = actions >= minActions && now >= end;
            if (done || now - txStart >= commitEvery) {
                producer.commitTransaction();
                transactions++;
                if (done) {
                    break;
                }
                producer.beginTransaction();
                txStart = System.nanoTime();
            }
        }
        if (task != null) {
            task.set(actions);
        }
        return new Phase(actions, records, transactions, System.nanoTime() - start);
    }

    /** The key of an action, {@code size} bytes: its number, zero-padded (one key per action, as in actiongate). */
    public static byte[] key(long action, int size) {
        byte[] key = new byte[size];
        long v = action;
        for (int i = size - 1; i >= 0; i--) {
            key[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        if (v != 0 && size > 0) {
            // longer numbers than the key size: fold the rest in so keys stay distinct enough to spread
            key[0] = (byte) ('a' + (int) (v % 26));
        }
        return key;
    }

    /** The topic's name without the gate deployment's id, safe as a topic name part. */
    public static String suffix(String topic) {
        String rest = topic.startsWith("bench-gate-") && topic.length() > 19 ? topic.substring(19) : topic;
        rest = rest.replaceAll("^[.-]+", "").replaceAll("[^A-Za-z0-9._-]", "_");
        return rest.isEmpty() ? "topic" : rest;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
