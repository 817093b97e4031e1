package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.Release;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.topics.Topics;

/**
 * A notifier meeting what a newer notifier wrote to its state topic, or a receipt a newer gate wrote, stops with the one line every role prints for a
 * refused downgrade, having applied and written nothing after it: skipping a claim it cannot read would send that
 * notice a second time (docs/contract.md section 3, "Versions a role does not read").
 */
class NotifierDowngradeIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @SafeVarargs
    private String topicWith(TestInfo test, ProducerRecord<String, byte[]>... records) throws Exception {
        String topic = TestNames.topicPrefix(test) + "notifier-state";
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                KAFKA.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<String, byte[]> r : records) {
                producer.send(new ProducerRecord<>(topic, 0, r.key(), r.value(), r.headers())).get();
            }
        }
        return topic;
    }

    private static ProducerRecord<String, byte[]> record(String key, String json) {
        return new ProducerRecord<>("", key, json.getBytes(StandardCharsets.UTF_8));
    }

    private static long end(String topic) throws Exception {
        TopicPartition p = new TopicPartition(topic, 0);
        return KAFKA.admin().listOffsets(Map.of(p, OffsetSpec.latest())).all().get().get(p).offset();
    }

    @Test
    void shouldStopWithOneLineOnARecordKindANewerNotifierWrote(TestInfo test) throws Exception {
        ProducerRecord<String, byte[]> digest = record("digest|T-1", "{\"at\":1}");
        digest.headers().add(AvroSerde.FORMAT_HEADER, "notifier-state v2; actiongate 0.2.0"
                .getBytes(StandardCharsets.UTF_8));
        String topic = topicWith(test, record("claim|T-1/call-7#first",
                "{\"nonce\":\"n1\",\"owner\":\"notifier-a\",\"at\":1767226200000}"), digest,
                record("claim|T-1/call-8#first", "{\"nonce\":\"n2\",\"owner\":\"notifier-a\",\"at\":1767226200000}"));

        KafkaLedger ledger = new KafkaLedger(KafkaClients.of(KAFKA.bootstrapServers(), Map.of()), topic,
                Duration.ofDays(7));
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> ledger.failure() != null);

            UnknownFormatException newer = UnknownFormatException.in(ledger.failure());
            assertThat(newer).isNotNull();
            assertThat(newer.getMessage()).isEqualTo(Release.current() + " stops: " + topic + "-0@1 holds a notifier "
                    + "state record of another kind (notifier-state v2) written by actiongate 0.2.0, which this release "
                    + "does not read (it reads claims and results: keys claim|ID and result|ID, JSON values); nothing "
                    + "was changed: run a release that reads it (docs/operating.md, Upgrades)");
            assertThat(ledger.claimed("T-1/call-7#first")).as("what came before it was applied").isTrue();
            assertThat(ledger.claimed("T-1/call-8#first")).as("nothing after it was").isFalse();
            assertThat(end(topic)).as("the ledger wrote nothing").isEqualTo(3);
        } finally {
            ledger.close();
        }
    }

    @Test
    void shouldStopOnAClaimWhoseValueThisReleaseCannotRead(TestInfo test) throws Exception {
        String topic = topicWith(test, record("claim|T-1/call-7#first", "{\"nonce\":\"n1\",\"when\":\"2026-12-06\"}"));

        KafkaLedger ledger = new KafkaLedger(KafkaClients.of(KAFKA.bootstrapServers(), Map.of()), topic,
                Duration.ofDays(7));
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> ledger.failure() != null);

            assertThat(UnknownFormatException.in(ledger.failure()).getMessage()).startsWith(Release.current()
                    + " stops: " + topic + "-0@0 holds a notifier state record this release cannot read written by a "
                    + "newer actiongate release");
            assertThat(ledger.claimed("T-1/call-7#first")).isFalse();
        } finally {
            ledger.close();
        }
    }

    @Test
    void shouldStopItsFeedOnAReceiptOfAVersionANewerGateWrote(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        ActionProposal first = Actions.proposal("T-1", "call-7", "Send the Q3 numbers");
        ActionProposal second = Actions.proposal("T-1", "call-8", "Send the Q4 numbers");
        byte[] newer = Topics.RECEIPTS.valueSerde().serializer().serialize(null,
                Actions.receipt(first, ReceiptStatus.WAITING_APPROVAL, Instant.ofEpochMilli(1_767_226_200_000L)));
        for (int i = 2; i < 10; i++) {
            newer[i] = (byte) (newer[i] ^ 0x5A); // a fingerprint no release of this build knows
        }
        KAFKA.admin().createTopics(List.of(new NewTopic(Topics.RECEIPTS.name(prefix), 1, (short) 1),
                new NewTopic(Topics.PROPOSALS.name(prefix), 1, (short) 1))).all().get();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                KAFKA.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.RECEIPTS.name(prefix), 0, Actions.key(first), newer)).get();
            producer.send(new ProducerRecord<>(Topics.RECEIPTS.name(prefix), 0, Actions.key(second),
                    Topics.RECEIPTS.valueSerde().serializer().serialize(null, Actions.receipt(second,
                            ReceiptStatus.WAITING_APPROVAL, Instant.ofEpochMilli(1_767_226_200_000L))))).get();
        }

        WaitingBook book = new WaitingBook();
        WaitingFeed feed = new WaitingFeed(KafkaClients.of(KAFKA.bootstrapServers(), Map.of()), prefix, book).start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> feed.failure() != null);

            assertThat(UnknownFormatException.in(feed.failure()).getMessage()).startsWith(Release.current() + " stops: "
                    + Topics.RECEIPTS.name(prefix) + "-0@0 holds Receipt with fingerprint ")
                    .contains("written by a newer actiongate release");
            assertThat(book.size()).as("nothing after it was read into the book").isZero();
        } finally {
            feed.close();
        }
    }
}
