package io.actiongate.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads what a topic holds under one key, for tests that check what was published. */
public final class KeyRecords {

    private static final Duration MAX_READ = Duration.ofSeconds(30);

    private KeyRecords() {
    }

    /**
     * Every committed, non-null value under {@code key} on {@code topic}, oldest first: the topic is read from its
     * beginning to its end offsets at the call (at most 30 s), without a consumer group.
     */
    public static List<byte[]> values(Map<String, Object> clientProperties, String topic, String key) {
        Map<String, Object> props = new java.util.HashMap<>(clientProperties);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<byte[]> values = new ArrayList<>();
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer());
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + MAX_READ.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key()) && r.value() != null) {
                        values.add(r.value());
                    }
                }
            }
        } finally {
            // no group, nothing to commit: a close would only wait out the fetch the broker holds (half a second)
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
        return values;
    }
}
