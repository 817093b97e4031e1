package io.actiongate.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TopicFollowerTest {

    private static final String TOPIC = "t.receipts";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    private final MockConsumer<String, byte[]> consumer =
            new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private static PartitionInfo info(int partition) {
        return new PartitionInfo(TOPIC, partition, Node.noNode(), new Node[0], new Node[0]);
    }

    private static ConsumerRecord<String, byte[]> record(TopicPartition p, long offset, String key) {
        return new ConsumerRecord<>(p.topic(), p.partition(), offset, key, new byte[0]);
    }

    @Test
    void shouldApplyEveryRecordCatchUpAtTheStartingEndOffsetsAndLetAWriterWaitForItsOwn() throws Exception {
        consumer.updatePartitions(TOPIC, List.of(info(0), info(1)));
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.updateEndOffsets(Map.of(P0, 2L, P1, 1L));
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(P0, 0, "a"));
            consumer.addRecord(record(P1, 0, "b"));
        });
        consumer.schedulePollTask(() -> consumer.addRecord(record(P0, 1, "c")));
        AtomicInteger caughtUp = new AtomicInteger();
        try (TopicFollower follower = new TopicFollower(consumer, List.of(TOPIC), r -> seen.add(r.key()),
                caughtUp::incrementAndGet, Duration.ofMillis(10), "follower-test").start()) {
            assertThat(follower.awaitCaughtUp(Duration.ofSeconds(10))).isTrue();
            assertThat(seen).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(caughtUp).hasValue(1);

            consumer.schedulePollTask(() -> consumer.addRecord(record(P1, 1, "mine")));
            assertThat(follower.awaitApplied(P1, 1, Duration.ofSeconds(10))).isTrue();
            assertThat(seen).contains("mine");
            assertThat(follower.awaitApplied(P1, 5, Duration.ofMillis(100))).as("not written yet").isFalse();
            follower.requireApplied(P1, 1, Duration.ofSeconds(10), IllegalStateException::new);
            assertThatThrownBy(() -> follower.requireApplied(P1, 5, Duration.ofMillis(100),
                    why -> new IllegalStateException("test state: " + why)))
                    .hasMessage("test state: the state reader did not reach its own write");
            assertThat(follower.isRunning()).isTrue();
        }
        assertThat(consumer.closed()).isTrue();
    }

    @Test
    void shouldFollowGivenPartitionsWithoutLookingThemUp() throws Exception {
        // no partitionsFor answer at all: the topic was created a moment ago and is not in the metadata yet
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        try (TopicFollower follower = TopicFollower.ofPartitions(consumer, List.of(P0), r -> seen.add(r.key()),
                () -> { }, Duration.ofMillis(10), "follower-given").start()) {
            assertThat(follower.awaitCaughtUp(Duration.ofSeconds(10))).isTrue();
            consumer.schedulePollTask(() -> consumer.addRecord(record(P0, 0, "claim")));
            assertThat(follower.awaitApplied(P0, 0, Duration.ofSeconds(10))).isTrue();
            assertThat(seen).containsExactly("claim");
            assertThat(follower.failure()).isNull();
        }
    }

    @Test
    void shouldStopOnAMissingTopicAndSaySo() throws Exception {
        TopicFollower follower = new TopicFollower(consumer, List.of("t.missing"), r -> { }, () -> { },
                Duration.ofMillis(10), "follower-missing").start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (follower.failure() == null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }

        assertThat(follower.failure()).hasMessage("topic t.missing does not exist (run 'topics create')");
        assertThat(follower.isRunning()).isFalse();
        assertThat(follower.caughtUp()).isFalse();
        follower.close();
    }

    @Test
    void shouldPollLongOnlyOnceCaughtUp() throws Exception {
        List<Duration> polls = new CopyOnWriteArrayList<>();
        MockConsumer<String, byte[]> timed = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name()) {
            @Override
            public synchronized org.apache.kafka.clients.consumer.ConsumerRecords<String, byte[]> poll(
                    Duration timeout) {
                polls.add(timeout);
                return super.poll(Duration.ZERO);
            }
        };
        timed.updateBeginningOffsets(Map.of(P0, 0L));
        timed.updateEndOffsets(Map.of(P0, 1L));
        timed.schedulePollTask(() -> { }); // a first poll that brings nothing: not caught up yet
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 0, "a")));
        try (TopicFollower follower = TopicFollower.ofPartitions(timed, List.of(P0), r -> seen.add(r.key()),
                () -> { }, Duration.ofMillis(10), "follower-polls").start()) {
            assertThat(follower.awaitCaughtUp(Duration.ofSeconds(10))).isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (polls.size() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }

        assertThat(polls.subList(0, 2)).containsOnly(Duration.ofMillis(10));
        assertThat(polls.subList(2, polls.size())).isNotEmpty().containsOnly(TopicFollower.CAUGHT_UP_POLL);
    }

    /** A poll's timeout and when it began. */
    private record Poll(Duration timeout, long nanos) {
    }

    private MockConsumer<String, byte[]> timed(List<Poll> polls) {
        MockConsumer<String, byte[]> timed = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name()) {
            @Override
            public synchronized org.apache.kafka.clients.consumer.ConsumerRecords<String, byte[]> poll(
                    Duration timeout) {
                polls.add(new Poll(timeout, System.nanoTime()));
                return super.poll(Duration.ZERO);
            }
        };
        timed.updateBeginningOffsets(Map.of(P0, 0L));
        timed.updateEndOffsets(Map.of(P0, 0L));
        return timed;
    }

    @Test
    void shouldWaitItsSpacingAfterAPollThatBroughtRecordsThenReadWhatCameWithoutWaiting() throws Exception {
        List<Poll> polls = new CopyOnWriteArrayList<>();
        MockConsumer<String, byte[]> timed = timed(polls);
        timed.schedulePollTask(() -> { }); // caught up (nothing written)
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 0, "first")));
        // what came during the wait: two answers already in, then nothing more
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 1, "second")));
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 2, "third")));
        Duration spacing = Duration.ofMillis(300);
        try (TopicFollower follower = TopicFollower.ofPartitions(timed, List.of(P0), r -> seen.add(r.key()),
                () -> { }, Duration.ofMillis(10), "follower-paced").paced(spacing).start()) {
            assertThat(follower.awaitApplied(P0, 2, Duration.ofSeconds(10))).isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (polls.size() < 7 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }

        assertThat(seen).containsExactly("first", "second", "third");
        assertThat(polls.subList(0, 6)).extracting(Poll::timeout).containsExactly(Duration.ofMillis(10),
                TopicFollower.CAUGHT_UP_POLL, Duration.ZERO, Duration.ZERO, Duration.ZERO,
                TopicFollower.CAUGHT_UP_POLL);
        // the wait came after the poll that brought the first record, and only there
        assertThat(Duration.ofNanos(polls.get(2).nanos() - polls.get(1).nanos())).isGreaterThanOrEqualTo(spacing);
        assertThat(Duration.ofNanos(polls.get(5).nanos() - polls.get(2).nanos())).isLessThan(spacing);
    }

    @Test
    void shouldNotWaitItsSpacingBeforeItCaughtUpNorWhenClosing() throws Exception {
        List<Poll> polls = new CopyOnWriteArrayList<>();
        MockConsumer<String, byte[]> timed = timed(polls);
        timed.updateEndOffsets(Map.of(P0, 3L));
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 0, "a")));
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 1, "b")));
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 2, "c"))); // caught up with it
        timed.schedulePollTask(() -> timed.addRecord(record(P0, 3, "d"))); // then a long wait begins
        TopicFollower follower = TopicFollower.ofPartitions(timed, List.of(P0), r -> seen.add(r.key()), () -> { },
                Duration.ofMillis(10), "follower-paced").paced(Duration.ofMinutes(10)).start();
        assertThat(follower.awaitApplied(P0, 3, Duration.ofSeconds(10))).isTrue();
        assertThat(polls).extracting(Poll::timeout).containsExactly(Duration.ofMillis(10), Duration.ofMillis(10),
                Duration.ofMillis(10), TopicFollower.CAUGHT_UP_POLL);

        long closing = System.nanoTime();
        follower.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
        assertThat(follower.isRunning()).isFalse();
        assertThat(follower.failure()).isNull();
        assertThat(timed.closed()).isTrue();
    }
}
