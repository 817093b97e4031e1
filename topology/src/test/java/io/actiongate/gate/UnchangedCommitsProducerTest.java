package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gate's producer leaves out exactly the commits that would change nothing, the way Kafka Streams commits. */
class UnchangedCommitsProducerTest {

    private static final TopicPartition P0 = new TopicPartition("actiongate.proposals", 0);
    private static final TopicPartition P1 = new TopicPartition("actiongate.proposals", 1);
    private static final ConsumerGroupMetadata GENERATION_1 =
            new ConsumerGroupMetadata("gate", 1, "member-a", Optional.empty());

    private final MockProducer<byte[], byte[]> kafka =
            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final UnchangedCommitsProducer producer = new UnchangedCommitsProducer(kafka);

    @BeforeEach
    void init() {
        producer.initTransactions();
    }

    /** What a stream thread's commit does: begin (if nothing was sent), offsets, commit. */
    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
        producer.beginTransaction();
        producer.sendOffsetsToTransaction(offsets, group);
        producer.commitTransaction();
    }

    private void send() {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("actiongate.receipts", new byte[] {1}));
    }

    @Test
    void shouldLeaveOutACommitOfTheOffsetsItCommittedLast() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1); // a punctuation that wrote nothing
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);

        assertThat(kafka.commitCount()).isEqualTo(1);
        assertThat(producer.skipped()).isEqualTo(2);
        assertThat(kafka.transactionInFlight()).as("nothing begun on the producer, so nothing left to end at close")
                .isFalse();
    }

    @Test
    void shouldCommitARecordSentIntoTheTransactionLeftOpen() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);

        send(); // the timer fired: a receipt, offsets unchanged
        producer.sendOffsetsToTransaction(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        producer.commitTransaction();

        assertThat(kafka.commitCount()).isEqualTo(2);
        assertThat(kafka.history()).hasSize(1);
        assertThat(kafka.consumerGroupOffsetsHistory()).hasSize(2);
    }

    @Test
    void shouldCommitOffsetsThatMovedOrWereNeverCommittedOrCarryOtherMetadata() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        commit(Map.of(P0, new OffsetAndMetadata(11, "t")), GENERATION_1);
        commit(Map.of(P0, new OffsetAndMetadata(11, "t"), P1, new OffsetAndMetadata(0, "t")), GENERATION_1);
        commit(Map.of(P0, new OffsetAndMetadata(11, "t2")), GENERATION_1);

        assertThat(kafka.commitCount()).isEqualTo(4);
        assertThat(producer.skipped()).isZero();
    }

    @Test
    void shouldCommitInAnotherGenerationOrForAnotherMember() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")),
                new ConsumerGroupMetadata("gate", 2, "member-a", Optional.empty()));
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")),
                new ConsumerGroupMetadata("gate", 2, "member-b", Optional.empty()));

        assertThat(kafka.commitCount()).isEqualTo(3);
    }

    @Test
    void shouldTakeNothingAsCommittedAfterAnAbort() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        send();
        producer.abortTransaction();

        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);

        assertThat(kafka.commitCount()).isEqualTo(2);
    }

    @Test
    void shouldTakeNothingAsCommittedAfterACommitFailed() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        kafka.commitTransactionException = new ProducerFencedException("fenced");
        assertThatThrownBy(() -> commit(Map.of(P0, new OffsetAndMetadata(11, "t")), GENERATION_1))
                .isInstanceOf(ProducerFencedException.class);
        kafka.commitTransactionException = null;
        producer.abortTransaction();

        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);

        assertThat(kafka.commitCount()).isEqualTo(2);
    }

    @Test
    void shouldHandAFailureToBeginToKafkaStreamsAsTheCauseOfTheSendThatBeganIt() {
        commit(Map.of(P0, new OffsetAndMetadata(10, "t")), GENERATION_1);
        producer.beginTransaction();
        kafka.beginTransactionException = new ProducerFencedException("fenced");

        // Kafka Streams reads a failed send's cause to tell a migrated task (fenced) from a fatal error
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>("actiongate.receipts", new byte[] {1})))
                .isInstanceOf(KafkaException.class).hasCauseInstanceOf(ProducerFencedException.class);
        assertThat(kafka.history()).isEmpty();
    }
}
