package io.actiongate.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class AttachmentCleanerTest {

    private static final String TOPIC = "actiongate.receipts";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final AvroSerde<Receipt> SERDE = AvroSerdes.serde(Receipt.class);

    private final InMemoryAttachmentStore store = new InMemoryAttachmentStore();
    private final CleanupMetrics metrics = new CleanupMetrics(new PrometheusRegistry());
    private MockConsumer<String, byte[]> consumer;
    private AttachmentCleaner cleaner;
    private long offset;

    @BeforeEach
    void setUp() {
        consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        cleaner = new AttachmentCleaner(consumer, SERDE, TOPIC, store, metrics, Duration.ofMillis(1),
                Duration.ofMillis(1));
        consumer.assign(List.of(P0));
        Map<TopicPartition, Long> begin = new HashMap<>();
        begin.put(P0, 0L);
        consumer.updateBeginningOffsets(begin);
    }

    /** A receipt as a gate before the attachments header wrote it. */
    private void receipt(String task, String call, ReceiptStatus status) {
        receipt(task, call, status, -1);
    }

    /** A receipt whose header states {@code attachments} (none when negative). */
    private void receipt(String task, String call, ReceiptStatus status, int attachments) {
        Receipt r = Receipt.newBuilder().setTaskId(task).setToolCallId(call).setStatus(status)
                .setToolName("send").setProvider("webhook").setOperation("send").setUpdatedAt(Instant.EPOCH).build();
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>(TOPIC, 0, offset++, ActionKey.format(task, call),
                SERDE.serialize(TOPIC, r));
        if (attachments >= 0) {
            io.actiongate.serde.ReceiptHeaders.writeAttachments(record.headers(), attachments);
        }
        consumer.addRecord(record);
    }

    @Test
    void shouldDeleteAfterEverySettledStatusAndKeepWhileWaitingOrUnknown() {
        int i = 0;
        for (ReceiptStatus status : ReceiptStatus.values()) {
            String call = "call-" + i++;
            store.stage("t/" + call, "text/plain", new byte[] {1});
            store.stage("t/" + call, "text/plain", new byte[] {2});
            receipt("t", call, status);
        }
        assertThat(cleaner.pollOnce()).isTrue();

        int j = 0;
        for (ReceiptStatus status : ReceiptStatus.values()) {
            String prefix = Invocations.keyPrefix("attachments/", "t/call-" + j++);
            boolean kept = store.describe(prefix + (2 * (j - 1) + 1)).isPresent();
            assertThat(kept).as(status.name()).isEqualTo(!AttachmentCleaner.SETTLED.contains(status));
        }
        assertThat(store.size()).isEqualTo(2 * 4); // WAITING_APPROVAL, APPROVED, DISPATCHING, UNKNOWN
        assertThat(metrics.deleted()).isEqualTo(2L * AttachmentCleaner.SETTLED.size());
        assertThat(consumer.committed(java.util.Set.of(P0)).get(P0).offset()).isEqualTo(offset);
    }

    @Test
    void shouldKeepObjectsUntilTheActionSettlesThenDeleteOnce() {
        store.stage("t/c", "text/plain", new byte[] {1});
        receipt("t", "c", ReceiptStatus.WAITING_APPROVAL);
        receipt("t", "c", ReceiptStatus.UNKNOWN);
        cleaner.pollOnce();
        assertThat(store.size()).isEqualTo(1);

        receipt("t", "c", ReceiptStatus.SUCCEEDED);
        receipt("t", "c", ReceiptStatus.SUCCEEDED); // redelivered: a no-op
        cleaner.pollOnce();
        assertThat(store.size()).isZero();
        assertThat(metrics.deleted()).isEqualTo(1);
    }

    @Test
    void shouldRetryFromTheFailedRecordWhenTheStoreIsDown() {
        store.stage("t/a", "text/plain", new byte[] {1});
        store.stage("t/b", "text/plain", new byte[] {1});
        receipt("t", "a", ReceiptStatus.DENIED);
        receipt("t", "b", ReceiptStatus.EXPIRED);
        store.unavailable = true;
        assertThat(cleaner.pollOnce()).isFalse();
        assertThat(metrics.failures()).isEqualTo(1);
        assertThat(consumer.committed(java.util.Set.of(P0))).doesNotContainKey(P0);
        assertThat(consumer.position(P0)).isZero();

        store.unavailable = false;
        // MockConsumer does not replay after seek; hand the records back as a broker would
        offset = 0;
        receipt("t", "a", ReceiptStatus.DENIED);
        receipt("t", "b", ReceiptStatus.EXPIRED);
        assertThat(cleaner.pollOnce()).isTrue();
        assertThat(store.size()).isZero();
        assertThat(consumer.committed(java.util.Set.of(P0)).get(P0).offset()).isEqualTo(2);
    }

    @Test
    void shouldNotLetARejectionOfAnUnheldRecordDeleteALiveActionsObjects() {
        store.stage("t/live", "text/plain", new byte[] {1});
        receipt("t", "live", ReceiptStatus.WAITING_APPROVAL);
        for (String code : List.of("KEY_MISMATCH", "INVALID_IDENTIFIER")) {
            Receipt forged = Receipt.newBuilder().setTaskId("t").setToolCallId("live")
                    .setStatus(ReceiptStatus.REJECTED).setReasonCode(code).setToolName("send").setProvider("webhook")
                    .setOperation("send").setUpdatedAt(Instant.EPOCH).build();
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset++, "t/live", SERDE.serialize(TOPIC, forged)));
        }
        cleaner.pollOnce();
        assertThat(store.size()).isEqualTo(1);

        receipt("t", "live", ReceiptStatus.DENIED);
        cleaner.pollOnce();
        assertThat(store.size()).isZero();
    }

    @Test
    void shouldNotAskTheStoreAboutASettledActionWhoseReceiptSaysItHasNoAttachment() {
        store.stage("t/none", "text/plain", new byte[] {1}); // staged, but the proposal named no attachment
        store.stage("t/two", "text/plain", new byte[] {1});
        receipt("t", "none", ReceiptStatus.SUCCEEDED, 0);
        store.unavailable = true;
        assertThat(cleaner.pollOnce()).as("the store was not asked: its being down does not matter").isTrue();
        assertThat(consumer.committed(java.util.Set.of(P0)).get(P0).offset()).isEqualTo(offset);

        store.unavailable = false;
        receipt("t", "two", ReceiptStatus.SUCCEEDED, 2);
        assertThat(cleaner.pollOnce()).isTrue();
        assertThat(store.size()).as("left for the bucket's lifecycle rule: t/none's object").isEqualTo(1);
        assertThat(metrics.deleted()).isEqualTo(1);
    }

    @Test
    void shouldSkipUndecodableReceipts() {
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset++, "t/x", new byte[] {1, 2, 3}));
        store.stage("t/y", "text/plain", new byte[] {1});
        receipt("t", "y", ReceiptStatus.REJECTED);
        assertThat(cleaner.pollOnce()).isTrue();
        assertThat(store.size()).isZero();
    }
}
