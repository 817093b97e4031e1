package io.actiongate.storage;

import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.ReceiptHeaders;

/**
 * Deletes an action's staged objects once its receipt says it settled: {@code SUCCEEDED}, {@code FAILED},
 * {@code REJECTED}, {@code DENIED}, {@code EXPIRED}, {@code CANCELLED} and {@code NOT_APPLIED} (the gate's known
 * pre-dispatch failures and an owner's or the reconciler's resolution all end in one of these). While an action
 * waits for approval, is approved or dispatching, or sits in {@code UNKNOWN}, its objects stay.
 *
 * <p>A plain consumer of {@code receipts} with its own group: offsets are committed only after the deletions of
 * the records before them succeeded, so a restart resumes where it stopped. Deleting is idempotent (an object
 * already gone is no error), so a record read twice does no harm. When the store is unreachable the cleaner
 * rewinds to the first record it could not clean and tries again after {@code retryBackoff}.
 */
public final class AttachmentCleaner implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AttachmentCleaner.class);

    /** The receipt statuses after which nothing will read the staged objects again. */
    public static final Set<ReceiptStatus> SETTLED = EnumSet.of(ReceiptStatus.SUCCEEDED, ReceiptStatus.FAILED,
            ReceiptStatus.REJECTED, ReceiptStatus.DENIED, ReceiptStatus.EXPIRED, ReceiptStatus.CANCELLED,
            ReceiptStatus.NOT_APPLIED);

    /**
     * Rejections of records the gate does not hold (bad ids, record key differing from the value's ids): the receipt
     * goes out under the record key, which may name another, live action. They settle nothing, so they delete
     * nothing; otherwise anyone could empty a waiting action's attachments by sending a mismatched record.
     */
    static final Set<String> UNHELD_REJECTIONS = Set.of("KEY_MISMATCH", "INVALID_IDENTIFIER");

    private final Consumer<String, byte[]> consumer;
    private final Deserializer<Receipt> receipts;
    private final String receiptsTopic;
    private final AttachmentStore store;
    private final CleanupMetrics metrics;
    private final Duration pollTimeout;
    private final Duration retryBackoff;
    private volatile boolean running = true;

    public AttachmentCleaner(Consumer<String, byte[]> consumer, Deserializer<Receipt> receipts, String receiptsTopic,
                             AttachmentStore store, CleanupMetrics metrics, Duration pollTimeout,
                             Duration retryBackoff) {
        this.consumer = consumer;
        this.receipts = receipts;
        this.receiptsTopic = receiptsTopic;
        this.store = store;
        this.metrics = metrics;
        this.pollTimeout = pollTimeout;
        this.retryBackoff = retryBackoff;
    }

    public void subscribe() {
        consumer.subscribe(List.of(receiptsTopic));
    }

    @Override
    public void run() {
        subscribe();
        try {
            while (running) {
                if (!pollOnce()) {
                    sleep(retryBackoff);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } finally {
            consumer.close();
        }
    }

    /**
     * One poll: cleans settled actions in offset order and commits past every record handled. Returns false when
     * the store failed and the rest of the batch was rewound for a later try.
     */
    public boolean pollOnce() {
        ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout);
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        boolean clean = true;
        for (TopicPartition partition : records.partitions()) {
            for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
                if (!clean) {
                    break;
                }
                try {
                    handle(record);
                    done.put(partition, new OffsetAndMetadata(record.offset() + 1));
                } catch (StorageUnavailableException e) {
                    metrics.recordFailure();
                    LOG.warn("attachment cleanup of {} failed ({}); retrying from there", record.key(),
                            e.getMessage());
                    clean = false;
                }
            }
        }
        if (!clean) {
            rewind(records.partitions(), records, done);
        }
        commit(done);
        return clean;
    }

    private void handle(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            return;
        }
        Receipt receipt;
        try {
            receipt = receipts.deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            LOG.debug("skipping undecodable receipt at {}-{}@{}", record.topic(), record.partition(),
                    record.offset());
            return;
        }
        if (!SETTLED.contains(receipt.getStatus())
                || !ActionKey.isValid(receipt.getTaskId(), receipt.getToolCallId())
                || unheldRejection(receipt)
                || ReceiptHeaders.attachments(record.headers()).orElse(-1) == 0) {
            // a receipt saying its action has no attachment costs no listing of the store (an older gate says
            // nothing, and the store is listed); objects staged but never proposed are the bucket lifecycle rule's
            return;
        }
        String owner = Invocations.ownerId(receipt.getTaskId(), receipt.getToolCallId());
        int deleted = store.deleteOwnedBy(owner);
        metrics.recordCleanup(receipt.getStatus().name(), deleted);
        if (deleted > 0) {
            LOG.info("deleted {} staged attachment object(s) of {} after {}", deleted, owner, receipt.getStatus());
        }
    }

    private static boolean unheldRejection(Receipt receipt) {
        return receipt.getStatus() == ReceiptStatus.REJECTED && receipt.getReasonCode() != null
                && UNHELD_REJECTIONS.contains(receipt.getReasonCode());
    }

    private void rewind(Collection<TopicPartition> partitions, ConsumerRecords<String, byte[]> records,
                        Map<TopicPartition, OffsetAndMetadata> done) {
        for (TopicPartition partition : partitions) {
            long next = done.containsKey(partition) ? done.get(partition).offset()
                    : records.records(partition).get(0).offset();
            consumer.seek(partition, next);
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> done) {
        if (done.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(done);
        } catch (KafkaException e) {
            // harmless: the records are read again and the deletions repeat as no-ops
            LOG.warn("attachment cleaner offset commit failed ({})", e.getClass().getSimpleName());
        }
    }

    /** Waits out the backoff, but returns within 100 ms of {@link #close()}. */
    private void sleep(Duration backoff) {
        long deadline = System.nanoTime() + backoff.toNanos();
        try {
            while (running && System.nanoTime() < deadline) {
                Thread.sleep(Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}
