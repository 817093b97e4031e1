package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.StreamPartitioner;

import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;

/**
 * Where a record of the gate belongs: partition {@code toPositive(murmur2(key bytes)) % partitions}, Java's
 * default for keyed records (docs/contract.md section 2, "Partitioning is the gate's job"; computed by
 * {@link Partitioning}). The gate's task {@code p} owns partition {@code p} of every action-keyed input and of
 * every internal hop topic, so a record is processed where it is when it already sits on its home partition and
 * takes one hop otherwise.
 */
public final class Routing {

    private final int partitions;

    /** Routing over {@code partitions} partitions per input topic (all four inputs have the same count). */
    public Routing(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        this.partitions = partitions;
    }

    /** One partition: every record is home (the topology test driver; a single-partition deployment). */
    public static Routing singlePartition() {
        return new Routing(1);
    }

    public int partitions() {
        return partitions;
    }

    /** The home partition of {@code routingKey} (the serialized key), as Java's default partitioner computes it. */
    public static int home(byte[] routingKey, int partitions) {
        return Partitioning.home(routingKey, partitions);
    }

    public int home(byte[] routingKey) {
        return home(routingKey, partitions);
    }

    public static int home(String routingKey, int partitions) {
        return home(routingKey.getBytes(StandardCharsets.UTF_8), partitions);
    }

    /**
     * Whether an action-keyed input record read by task {@code current} must hop to its home task. Only a live
     * record (a value) whose key is a valid action key hops: a record with no key or an invalid key can never meet
     * an action, so it is refused (dead letter or receipt) where it was read, with its true source position, and
     * a tombstone is ignored anywhere.
     */
    public boolean takesHop(byte[] key, byte[] value, int current) {
        if (partitions == 1 || key == null || value == null || !isActionKey(key)) {
            return false;
        }
        return home(key) != current;
    }

    /** Whether {@code key} is the UTF-8 of a valid action key. */
    public static boolean isActionKey(byte[] key) {
        return ActionKey.tryParse(new String(key, StandardCharsets.UTF_8)).isPresent();
    }

    /**
     * The partitioner of every hop topic: murmur2 of the serialized record key, whatever the producer
     * configuration of the Streams client says, so a hop always lands on the task that owns the key.
     */
    public static StreamPartitioner<byte[], byte[]> partitioner() {
        return new HopPartitioner<>();
    }

    /** {@link #partitioner()} for a stream typed {@code Object} whose keys are byte arrays. */
    public static StreamPartitioner<Object, Object> objectPartitioner() {
        return new HopPartitioner<>();
    }

    /**
     * Kafka Streams asks {@link #partitions(String, Object, Object, Headers, int)}; the variant without headers is
     * still abstract in the interface (deprecated for removal), so it is implemented too, as the same answer.
     */
    private static final class HopPartitioner<K, V> implements StreamPartitioner<K, V> {
        @Override
        public Optional<Set<Integer>> partitions(String topic, K key, V value, Headers headers, int numPartitions) {
            return Optional.of(Set.of(home(keyBytes(key), numPartitions)));
        }

        @Deprecated
        @SuppressWarnings("removal") // required by the interface until Kafka removes it
        @Override
        public Optional<Set<Integer>> partitions(String topic, K key, V value, int numPartitions) {
            return partitions(topic, key, value, null, numPartitions);
        }
    }

    private static byte[] keyBytes(Object key) {
        if (key instanceof byte[] bytes) {
            return bytes;
        }
        throw new IllegalStateException("a hop record needs a byte[] key; the gate routes only keyed records");
    }
}
