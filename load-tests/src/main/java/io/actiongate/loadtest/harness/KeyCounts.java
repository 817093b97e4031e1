package io.actiongate.loadtest.harness;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Per-key invariants of a row: reads a topic from its beginning to its end with {@code read_committed}
 * and counts, per key, the records {@code counted} accepts; then {@link #exactlyOnce} says whether every key of the
 * row has exactly one (one reservation, one terminal receipt per action), and names a few that do not.
 */
public final class KeyCounts {

    private KeyCounts() {
    }

    /** Per key, the committed records of {@code topic} that {@code counted} accepts. */
    public static Map<String, Integer> count(String bootstrap, String topic, Predicate<byte[]> counted) {
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = OutputWatcher.committedReader(bootstrap, topic, false,
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000))) {
            Set<TopicPartition> parts = consumer.assignment();
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!reached(consumer, end) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() != null && r.value() != null && counted.test(r.value())) {
                        counts.merge(r.key(), 1, Integer::sum);
                    }
                }
            }
        }
        return counts;
    }

    private static boolean reached(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** A per-key check: how many keys had exactly one, and up to three that had not, with their count. */
    public record Check(int keys, int exactlyOne, List<String> offenders) {

        public boolean held() {
            return keys == exactlyOne;
        }

        public String detail(String what) {
            return exactlyOne + "/" + keys + " actions with exactly one " + what
                    + (offenders.isEmpty() ? "" : "; e.g. " + String.join(", ", offenders));
        }
    }

    /** Whether every one of {@code keys} has exactly one in {@code counts}. */
    public static Check exactlyOnce(Collection<String> keys, Map<String, Integer> counts) {
        int one = 0;
        List<String> offenders = new java.util.ArrayList<>();
        for (String key : keys) {
            int n = counts.getOrDefault(key, 0);
            if (n == 1) {
                one++;
            } else if (offenders.size() < 3) {
                offenders.add(key + "=" + n);
            }
        }
        return new Check(keys.size(), one, List.copyOf(offenders));
    }
}
