package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

class GroupCommitsTest {

    private static final TopicPartition PROPOSALS_0 = new TopicPartition("actiongate.proposals", 0);
    private static final TopicPartition OUTCOMES_0 = new TopicPartition("actiongate.outcomes", 0);

    private final MockProcessorContext<Object, Object> context =
            new MockProcessorContext<>(new Properties(), new TaskId(0, 0), null);

    private static ConsumerRecords<byte[], byte[]> polled(TopicPartition partition, long... offsets) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long offset : offsets) {
            records.add(new ConsumerRecord<>(partition.topic(), partition.partition(), offset, null, null));
        }
        return new ConsumerRecords<>(Map.of(partition, records), Map.of());
    }

    private static ConsumerRecords<byte[], byte[]> polled(Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> m) {
        return new ConsumerRecords<>(m, Map.of());
    }

    /** The topology finished the record at {@code offset} of {@code partition}: did it ask for a commit? */
    private boolean processed(GroupCommits commits, TopicPartition partition, long offset) {
        context.resetCommit();
        context.setRecordMetadata(partition.topic(), partition.partition(), offset);
        commits.processed(context);
        return context.committed();
    }

    /**
     * The thread's next poll, which brings {@code records}: returns whether a commit was asked for then. Checks first
     * that a poll a drained transaction waits for does not block.
     */
    private boolean lookAgain(GroupCommits commits, ConsumerRecords<byte[], byte[]> records,
                              Set<TopicPartition> owned) {
        assertThat(commits.pollTimeout(Duration.ofMillis(100))).as("the look does not block").isEqualTo(Duration.ZERO);
        context.resetCommit();
        commits.polled(records, () -> owned);
        return context.committed();
    }

    @Test
    void shouldAskForACommitOnceEveryRecordOfThePollIsProcessedAndOneMoreLookBringsNothing() {
        GroupCommits commits = GroupCommits.of(true);
        commits.polled(polled(Map.of(
                PROPOSALS_0, List.of(new ConsumerRecord<>(PROPOSALS_0.topic(), 0, 7L, null, null),
                        new ConsumerRecord<>(PROPOSALS_0.topic(), 0, 8L, null, null)),
                OUTCOMES_0, List.of(new ConsumerRecord<>(OUTCOMES_0.topic(), 0, 3L, null, null)))),
                () -> Set.of(PROPOSALS_0, OUTCOMES_0));

        assertThat(processed(commits, PROPOSALS_0, 7)).as("more of this partition to come").isFalse();
        assertThat(processed(commits, OUTCOMES_0, 3)).as("a proposal still waits").isFalse();
        assertThat(processed(commits, PROPOSALS_0, 8)).as("the last polled record: drained, but not asked yet")
                .isFalse();
        assertThat(lookAgain(commits, ConsumerRecords.empty(), Set.of(PROPOSALS_0, OUTCOMES_0)))
                .as("the look brings nothing: ask now").isTrue();
        assertThat(commits.pollTimeout(Duration.ofMillis(100))).as("the poll after the commit may block again")
                .isEqualTo(Duration.ofMillis(100));

        // the next transaction: one record, drained right after it, asked once the look brings nothing
        commits.polled(polled(OUTCOMES_0, 4), () -> Set.of(PROPOSALS_0, OUTCOMES_0));
        assertThat(processed(commits, OUTCOMES_0, 4)).isFalse();
        assertThat(lookAgain(commits, ConsumerRecords.empty(), Set.of(PROPOSALS_0, OUTCOMES_0))).isTrue();
    }

    @Test
    void shouldLetWhatTheLookBringsJoinTheTransactionAndThenCommitAtOnce() {
        // what arrived while the last transaction committed: the first poll brings part of it, the look the rest
        GroupCommits commits = GroupCommits.of(true);
        commits.polled(polled(PROPOSALS_0, 10), () -> Set.of(PROPOSALS_0, OUTCOMES_0));
        assertThat(processed(commits, PROPOSALS_0, 10)).isFalse();
        assertThat(lookAgain(commits, polled(PROPOSALS_0, 11, 12), Set.of(PROPOSALS_0, OUTCOMES_0)))
                .as("the look brought records: not yet").isFalse();
        assertThat(commits.pollTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
        assertThat(processed(commits, PROPOSALS_0, 11)).isFalse();
        assertThat(processed(commits, PROPOSALS_0, 12)).as("one look per transaction: drained, ask at once").isTrue();

        // the transaction after it looks again
        commits.polled(polled(OUTCOMES_0, 1), () -> Set.of(PROPOSALS_0, OUTCOMES_0));
        assertThat(processed(commits, OUTCOMES_0, 1)).isFalse();
        assertThat(lookAgain(commits, ConsumerRecords.empty(), Set.of(PROPOSALS_0, OUTCOMES_0))).isTrue();
    }

    @Test
    void shouldNotShortenAPollThatNoDrainedTransactionWaitsFor() {
        GroupCommits commits = GroupCommits.of(true);
        assertThat(commits.pollTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
        commits.polled(polled(PROPOSALS_0, 1, 2), () -> Set.of(PROPOSALS_0));
        assertThat(processed(commits, PROPOSALS_0, 1)).isFalse();
        assertThat(commits.pollTimeout(Duration.ofMillis(100))).as("not drained yet").isEqualTo(Duration.ofMillis(100));
        assertThat(GroupCommits.OFF.pollTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void shouldForgetRecordsOfAPartitionTheThreadNoLongerOwns() {
        GroupCommits commits = GroupCommits.of(true);
        commits.polled(polled(PROPOSALS_0, 1, 2), () -> Set.of(PROPOSALS_0, OUTCOMES_0));
        assertThat(processed(commits, PROPOSALS_0, 1)).isFalse();
        // PROPOSALS_0 is revoked with offset 2 still buffered: Streams drops it, the next poll must not wait for it
        commits.polled(polled(OUTCOMES_0, 9), () -> Set.of(OUTCOMES_0));
        assertThat(processed(commits, OUTCOMES_0, 9)).isFalse();
        assertThat(lookAgain(commits, ConsumerRecords.empty(), Set.of(OUTCOMES_0))).isTrue();
    }

    @Test
    void shouldStopWaitingForARecordThatIsNotProcessedInTime() throws InterruptedException {
        GroupCommits commits = GroupCommits.of(true);
        commits.polled(polled(PROPOSALS_0, 1, 2), () -> Set.of(PROPOSALS_0, OUTCOMES_0));
        commits.polled(polled(OUTCOMES_0, 5, 6), () -> Set.of(PROPOSALS_0, OUTCOMES_0));
        assertThat(processed(commits, OUTCOMES_0, 5)).isFalse();
        Thread.sleep(GroupCommits.STALE_NANOS / 1_000_000 + 50);
        assertThat(processed(commits, OUTCOMES_0, 6)).as("offset 2 of proposals never came: stale").isFalse();
        assertThat(lookAgain(commits, ConsumerRecords.empty(), Set.of(PROPOSALS_0, OUTCOMES_0))).isTrue();
    }

    @Test
    void shouldAskAfterEveryRecordWhenNothingReportsPolls() {
        // a TopologyTestDriver, or a KafkaStreams built without the gate's client supplier
        GroupCommits commits = GroupCommits.of(true);
        assertThat(processed(commits, PROPOSALS_0, 1)).isTrue();
        assertThat(processed(commits, PROPOSALS_0, 2)).isTrue();
    }

    @Test
    void shouldNeverAskWhenOff() {
        GroupCommits off = GroupCommits.of(false);
        assertThat(off).isSameAs(GroupCommits.OFF);
        off.polled(polled(PROPOSALS_0, 1), () -> Set.of(PROPOSALS_0));
        assertThat(processed(off, PROPOSALS_0, 1)).isFalse();
    }

    @Test
    void shouldKeepEachStreamThreadsPollsApart() throws Exception {
        GroupCommits commits = GroupCommits.of(true);
        commits.polled(polled(PROPOSALS_0, 1), () -> Set.of(PROPOSALS_0));
        // another stream thread polled nothing of ours: its record is its own and drains it
        boolean[] asked = new boolean[1];
        Thread other = new Thread(() -> asked[0] = processed(commits, OUTCOMES_0, 1));
        other.start();
        other.join();
        assertThat(asked[0]).isTrue();
        assertThat(processed(commits, OUTCOMES_0, 2)).as("this thread still waits for proposals 1").isFalse();
    }

    @Test
    void shouldNotFailThePollWhenTheTaskBecameAStandbyMeanwhile() {
        // a rebalance during the look turned the task into a standby, whose context refuses commit()
        MockProcessorContext<Object, Object> standby = new MockProcessorContext<>(new Properties(), new TaskId(0, 0),
                null) {
            @Override
            public void commit() {
                throw new UnsupportedOperationException("this should not happen: commit() is not supported in "
                        + "standby tasks.");
            }
        };
        GroupCommits commits = GroupCommits.of(true);
        commits.polled(polled(PROPOSALS_0, 1), () -> Set.of(PROPOSALS_0));
        standby.setRecordMetadata(PROPOSALS_0.topic(), PROPOSALS_0.partition(), 1);
        commits.processed(standby);
        commits.polled(ConsumerRecords.empty(), () -> Set.of());
        assertThat(commits.pollTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
    }
}
