package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.actiongate.gate.internal.GroupCommits;

/** The stream thread's main consumer: how long each poll it passes on may wait. */
class GroupCommitConsumerTest {

    private static final Duration POLL_MS = Duration.ofMillis(100);
    private static final Duration IDLE_POLL = Duration.ofMillis(500);
    private static final TopicPartition PARTITION = new TopicPartition("actiongate.proposals", 0);

    /** Kafka's mock, remembering the timeout of every poll it gets. */
    private static final class TimedConsumer extends MockConsumer<byte[], byte[]> {
        final List<Duration> timeouts = new ArrayList<>();

        TimedConsumer() {
            super("earliest");
        }

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            timeouts.add(timeout);
            return super.poll(timeout);
        }

        Duration last() {
            return timeouts.get(timeouts.size() - 1);
        }
    }

    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private TimedConsumer delegate;
    private GroupCommitConsumer consumer;
    private long offset;

    @BeforeEach
    void setUp() {
        delegate = new TimedConsumer();
        delegate.assign(List.of(PARTITION));
        delegate.updateBeginningOffsets(Map.of(PARTITION, 0L));
        consumer = new GroupCommitConsumer(delegate, GroupCommits.OFF, IDLE_POLL, now::get);
    }

    private void pass(Duration d) {
        now.addAndGet(d.toNanos());
    }

    /** How long the poll the consumer passed on for one asked to wait {@code asked} was allowed to wait. */
    private Duration waitOf(Duration asked) {
        consumer.poll(asked);
        return delegate.last();
    }

    private void arrive() {
        delegate.addRecord(new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset++, new byte[0],
                new byte[0]));
    }

    @Test
    void shouldWaitAsKafkaStreamsAsksUntilNothingCameForASecond() {
        assertThat(waitOf(POLL_MS)).isEqualTo(POLL_MS);
        pass(Duration.ofMillis(999));
        assertThat(waitOf(POLL_MS)).isEqualTo(POLL_MS);
    }

    @Test
    void shouldWaitTheIdlePollOnceNothingCameForASecondAndAsAskedAgainOnceRecordsCome() {
        pass(Duration.ofSeconds(1));
        assertThat(waitOf(POLL_MS)).isEqualTo(IDLE_POLL);

        arrive();
        assertThat(consumer.poll(POLL_MS)).hasSize(1); // a record ends the idle poll: waits as asked again
        assertThat(waitOf(POLL_MS)).isEqualTo(POLL_MS);
        pass(Duration.ofMillis(900));
        assertThat(waitOf(POLL_MS)).isEqualTo(POLL_MS);
        pass(Duration.ofMillis(100));
        assertThat(waitOf(POLL_MS)).isEqualTo(IDLE_POLL);
    }

    @Test
    void shouldNotWaitLongerWhileAPartitionIsPaused() {
        pass(Duration.ofSeconds(5));
        delegate.pause(List.of(PARTITION)); // a task restoring, or its buffer full
        assertThat(waitOf(POLL_MS)).isEqualTo(POLL_MS);
        delegate.resume(List.of(PARTITION));
        assertThat(waitOf(POLL_MS)).isEqualTo(IDLE_POLL);
    }

    @Test
    void shouldKeepAPollKafkaStreamsWantsBackAtOnceAndOneAlreadyLongerThanTheIdlePoll() {
        pass(Duration.ofSeconds(5));
        assertThat(waitOf(Duration.ZERO)).isEqualTo(Duration.ZERO); // a rebalance or a shutdown in progress
        // poll.ms set longer than the idle poll
        assertThat(waitOf(Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void shouldLeaveTheLookBeforeACommitUnblockedWhenIdle() {
        GroupCommits commits = GroupCommits.of(true);
        consumer = new GroupCommitConsumer(delegate, commits, IDLE_POLL, now::get);
        pass(Duration.ofSeconds(5));
        assertThat(waitOf(POLL_MS)).isEqualTo(IDLE_POLL);
        arrive();
        assertThat(consumer.poll(POLL_MS)).hasSize(1);
        // the topology finished that record: the commit waits for one more look, which must not block
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        context.setRecordMetadata(PARTITION.topic(), PARTITION.partition(), 0);
        commits.processed(context);
        pass(Duration.ofSeconds(5));
        assertThat(waitOf(POLL_MS)).isEqualTo(Duration.ZERO);
    }

    @Test
    void shouldDeriveTheIdlePollFromTheTimersAndBoundIt() {
        Map<String, String> settings = new HashMap<>();
        assertThat(GateStreams.idlePoll(GateConfig.fromStrings(settings))).isEqualTo(Duration.ofMillis(500));
        settings.put(GateConfig.CANCEL_SWEEP_INTERVAL_CONFIG, "300ms");
        assertThat(GateStreams.idlePoll(GateConfig.fromStrings(settings))).isEqualTo(Duration.ofMillis(150));
        settings.put(GateConfig.PUNCTUATE_INTERVAL_CONFIG, "10m");
        settings.put(GateConfig.CANCEL_SWEEP_INTERVAL_CONFIG, "10m");
        assertThat(GateStreams.idlePoll(GateConfig.fromStrings(settings))).isEqualTo(GateStreams.MAX_IDLE_POLL);
    }
}
