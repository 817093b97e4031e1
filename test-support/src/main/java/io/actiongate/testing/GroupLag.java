package io.actiongate.testing;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits until a consumer group has consumed everything written to its topics, instead of watching for a fixed
 * "quiet" time. For a Kafka Streams application under exactly-once this means every record has been processed and
 * what it wrote committed with its offset, so a read_committed reader that reads its output topics to their end
 * sees all of it: the moment to assert that nothing happened twice.
 *
 * <p>The group's committed offsets must reach each partition's end offset; the end offsets are then read again,
 * and the wait goes on while they moved, since processing one topic may write to another the group reads (a
 * Streams repartition topic, the gate's hops). Records that time alone produces (a punctuator) are not waited for.
 */
public final class GroupLag {

    private static final long POLL_MS = 20;

    private GroupLag() {
    }

    /**
     * Returns once {@code group} has committed, on every partition of {@code topics}, an offset at or past the
     * partition's end offset, and the end offsets did not move meanwhile; fails after {@code timeout} naming the
     * partitions behind.
     */
    public static void awaitNone(Admin admin, String group, Collection<String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            Map<TopicPartition, Long> ends = endOffsets(admin, topics);
            while (true) {
                Map<TopicPartition, Long> behind = behind(admin, group, ends);
                if (behind.isEmpty()) {
                    Map<TopicPartition, Long> now = endOffsets(admin, topics);
                    if (now.equals(ends)) {
                        return;
                    }
                    ends = now;
                    continue;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("consumer group " + group + " still behind after " + timeout
                            + " (partition=committed/end): " + describe(behind, ends));
                }
                Thread.sleep(POLL_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not read the offsets of group " + group, e);
        }
    }

    /** The partitions whose committed offset (absent: 0) is below its end offset, with that committed offset. */
    private static Map<TopicPartition, Long> behind(Admin admin, String group, Map<TopicPartition, Long> ends)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        Map<TopicPartition, Long> behind = new HashMap<>();
        ends.forEach((tp, end) -> {
            OffsetAndMetadata at = committed.get(tp);
            long offset = at == null ? 0 : at.offset();
            if (offset < end) {
                behind.put(tp, offset);
            }
        });
        return behind;
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, Collection<String> topics)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).forEach((name, d) ->
                d.partitions().forEach(p -> latest.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        return admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private static String describe(Map<TopicPartition, Long> behind, Map<TopicPartition, Long> ends) {
        return behind.entrySet().stream().sorted(Map.Entry.comparingByKey(
                        (a, b) -> a.toString().compareTo(b.toString())))
                .map(e -> e.getKey() + "=" + e.getValue() + "/" + ends.get(e.getKey()))
                .collect(Collectors.joining(", "));
    }
}
