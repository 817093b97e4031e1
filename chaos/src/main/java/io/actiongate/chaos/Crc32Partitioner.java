package io.actiongate.chaos;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32;

import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;

/**
 * librdkafka's {@code consistent} partitioner: CRC32 of the key bytes modulo the partition count. A producer that
 * uses it puts most keys on another partition than the Java client's murmur2 default, which the gate must route.
 */
public final class Crc32Partitioner implements Partitioner {

    /** The partition librdkafka's {@code consistent} partitioner picks for {@code key}. */
    public static int partition(String key, int partitions) {
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % partitions);
    }

    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
        int partitions = cluster.partitionCountForTopic(topic);
        if (keyBytes == null) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(keyBytes);
        return (int) (crc.getValue() % partitions);
    }

    @Override
    public void configure(Map<String, ?> configs) {
        // nothing to configure
    }

    @Override
    public void close() {
        // nothing to release
    }
}
