package io.actiongate.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.actiongate.topics.Topics;

class ReceiptWatcherTest {

    private static final String PREFIX = "t.";

    /** A consumer that remembers how long each poll was asked to wait, and does not wait. */
    private final List<Duration> polls = new CopyOnWriteArrayList<>();
    private final MockConsumer<String, byte[]> consumer =
            new MockConsumer<>(AutoOffsetResetStrategy.LATEST.name()) {
                @Override
                public synchronized ConsumerRecords<String, byte[]> poll(Duration timeout) {
                    polls.add(timeout);
                    ConsumerRecords<String, byte[]> records = super.poll(Duration.ZERO);
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return records;
                }
            };

    @Test
    void shouldPollLongWhileNobodyWaitsAndWakeForAWaiter() throws Exception {
        for (String topic : List.of(Topics.RECEIPTS.name(PREFIX), Topics.CONFLICTS.name(PREFIX))) {
            consumer.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, Node.noNode(), new Node[0],
                    new Node[0])));
            consumer.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
        try (ReceiptWatcher watcher = new ReceiptWatcher(consumer, PREFIX, Duration.ofSeconds(5))) {
            awaitPolls(3);
            assertThat(watcher.paused()).isTrue();
            assertThat(polls).containsOnly(ReceiptWatcher.PAUSED_POLL);

            watcher.register("T-1/c-1", "digest", "digest", "org", "webhook:post:POST", Until.TERMINAL);
            int before = polls.size();
            awaitPolls(before + 3);
            assertThat(watcher.paused()).isFalse();
            assertThat(polls.subList(before + 1, polls.size())).doesNotContain(ReceiptWatcher.PAUSED_POLL);
        }
    }

    private void awaitPolls(int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (polls.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(polls).hasSizeGreaterThanOrEqualTo(count);
    }
}
