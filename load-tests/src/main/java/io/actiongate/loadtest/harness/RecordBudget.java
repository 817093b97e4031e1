package io.actiongate.loadtest.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.actiongate.loadtest.report.RecordCounts;

/**
 * The records actiongate writes per action, counted on the broker: the log end offsets of every topic of one
 * actiongate deployment (its contract topics under the topic prefix and the Streams internal topics under the
 * application id) before and after a measured burst, and the records between them read back twice, with
 * {@code read_committed} (the committed records and their sizes) and {@code read_uncommitted} (so that what remains
 * of the offsets are transaction control markers).
 */
public final class RecordBudget {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration QUIET = Duration.ofMillis(400);

    private RecordBudget() {
    }

    /** Log end offsets of every partition of every topic whose name starts with {@code namePrefix}. */
    public static Map<TopicPartition, Long> endOffsets(String bootstrap, String namePrefix) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            List<String> names = admin.listTopics().names().get().stream().filter(n -> n.startsWith(namePrefix))
                    .sorted().toList();
            Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get();
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            described.values().forEach(d -> d.partitions().forEach(p ->
                    request.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, Long> out = new HashMap<>();
            admin.listOffsets(request).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        }
    }

    /**
     * Waits until the end offsets under {@code namePrefix} stay the same for a while (the gate's and the executor's
     * last transactions committed), at most {@code timeout}; returns the last offsets read.
     */
    public static Map<TopicPartition, Long> quiescentEndOffsets(String bootstrap, String namePrefix, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, Long> last = endOffsets(bootstrap, namePrefix);
        int stable = 0;
        while (stable < 2 && System.nanoTime() < deadline) {
            Thread.sleep(QUIET.toMillis());
            Map<TopicPartition, Long> now = endOffsets(bootstrap, namePrefix);
            stable = now.equals(last) ? stable + 1 : 0;
            last = now;
        }
        return last;
    }

    /**
     * Counts what moved between {@code before} and {@code after}. {@code clientRecords}: records per topic that the
     * benchmark's own client wrote in that span (they are subtracted, so only actiongate's writes count).
     */
    public static RecordCounts.Budget count(String bootstrap, int actions, Map<TopicPartition, Long> before,
                        Map<TopicPartition, Long> after, Map<String, Long> clientRecords,
                        java.util.function.Function<String, String> kindOf) throws Exception {
        Map<TopicPartition, long[]> spans = new HashMap<>();
        after.forEach((tp, end) -> {
            long start = before.getOrDefault(tp, 0L);
            if (end > start) {
                spans.put(tp, new long[] {start, end});
            }
        });
        Map<String, long[]> committed = read(bootstrap, spans, "read_committed");
        Map<String, long[]> uncommitted = read(bootstrap, spans, "read_uncommitted");
        Map<String, Integer> partitions = after.keySet().stream()
                .collect(Collectors.groupingBy(TopicPartition::topic, TreeMap::new, Collectors.summingInt(tp -> 1)));
        List<RecordCounts.TopicCount> topics = new ArrayList<>();
        for (Map.Entry<String, Integer> e : partitions.entrySet()) {
            String topic = e.getKey();
            long offsets = spans.entrySet().stream().filter(s -> s.getKey().topic().equals(topic))
                    .mapToLong(s -> s.getValue()[1] - s.getValue()[0]).sum();
            if (offsets == 0) {
                continue;
            }
            long[] c = committed.getOrDefault(topic, new long[3]);
            long[] u = uncommitted.getOrDefault(topic, new long[3]);
            long client = clientRecords.getOrDefault(topic, 0L);
            // the client's records are all committed (non-transactional); their bytes are averaged away pro rata
            long records = Math.max(0, c[0] - client);
            double share = c[0] == 0 ? 0 : (double) records / c[0];
            topics.add(new RecordCounts.TopicCount(topic, kindOf.apply(topic), e.getValue(), offsets - client, records,
                    Math.max(0, u[0] - client), Math.round(c[1] * share), Math.round(c[2] * share)));
        }
        return new RecordCounts.Budget(actions, topics);
    }

    /** Per topic: records, key bytes, value+header bytes in the spans, read with {@code isolation}. */
    private static Map<String, long[]> read(String bootstrap, Map<TopicPartition, long[]> spans, String isolation)
            throws InterruptedException, ExecutionException {
        Map<String, long[]> out = new HashMap<>();
        if (spans.isEmpty()) {
            return out;
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(spans.keySet());
            spans.forEach((tp, span) -> consumer.seek(tp, span[0]));
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            List<TopicPartition> open = new ArrayList<>(spans.keySet());
            while (!open.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    long[] span = spans.get(new TopicPartition(r.topic(), r.partition()));
                    if (r.offset() >= span[1]) {
                        continue;
                    }
                    long[] sums = out.computeIfAbsent(r.topic(), t -> new long[3]);
                    long headers = 0;
                    for (Header h : r.headers()) {
                        headers += h.key().length() + (h.value() == null ? 0 : h.value().length);
                    }
                    sums[0]++;
                    sums[1] += Math.max(0, r.serializedKeySize());
                    sums[2] += Math.max(0, r.serializedValueSize()) + headers;
                }
                open.removeIf(tp -> consumer.position(tp) >= spans.get(tp)[1]);
            }
            if (!open.isEmpty()) {
                throw new IllegalStateException("could not read " + open + " to the counted end offsets ("
                        + isolation + ") within " + READ_TIMEOUT);
            }
        }
        return out;
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }
}
