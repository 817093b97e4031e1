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
    void shouldNotPollWhileNobodyWaitsBeyondAHousekeepingPollEachPausedWait() throws Exception {
        topics();
        try (ReceiptWatcher watcher = new ReceiptWatcher(consumer, PREFIX, Duration.ofSeconds(5),
                Duration.ofMillis(200))) {
            Thread.sleep(1_100);
            assertThat(watcher.paused()).isTrue();
            // a paused consumer has no fetch in flight, so any poll that is asked to wait wakes every
            // retry.backoff.ms: while nobody waits, the thread only lets the consumer do its housekeeping
            assertThat(polls).containsOnly(Duration.ZERO).hasSizeBetween(3, 6);
        }
    }

    @Test
    void shouldResumeAtOnceWhenAWaiterArrivesWhilePaused() throws Exception {
        topics();
        try (ReceiptWatcher watcher = new ReceiptWatcher(consumer, PREFIX, Duration.ofSeconds(5),
                Duration.ofMinutes(10))) {
            awaitPaused(watcher);
            long registered = System.nanoTime();
            watcher.register("T-1/c-1", "digest", "digest", "org", "webhook:post:POST", Until.TERMINAL);
            awaitPolls(3);
            assertThat(Duration.ofNanos(System.nanoTime() - registered)).isLessThan(Duration.ofSeconds(5));
            assertThat(watcher.paused()).isFalse();
            assertThat(polls).doesNotContain(Duration.ZERO);
        }
    }

    @Test
    void shouldCloseAtOnceWhilePaused() throws Exception {
        topics();
        ReceiptWatcher watcher = new ReceiptWatcher(consumer, PREFIX, Duration.ofSeconds(5), Duration.ofMinutes(10));
        awaitPaused(watcher);
        long closing = System.nanoTime();
        watcher.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
        assertThat(watcher.isRunning()).isFalse();
        assertThat(consumer.closed()).isTrue();
    }

    private void topics() {
        for (String topic : List.of(Topics.RECEIPTS.name(PREFIX), Topics.CONFLICTS.name(PREFIX))) {
            consumer.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, Node.noNode(), new Node[0],
                    new Node[0])));
            consumer.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
    }

    private static void awaitPaused(ReceiptWatcher watcher) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!watcher.paused() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(watcher.paused()).isTrue();
    }

    private void awaitPolls(int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (polls.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(polls).hasSizeGreaterThanOrEqualTo(count);
    }
}
