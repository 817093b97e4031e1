package io.actiongate.approver.book;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.Reconciliation;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.UnknownFormatException;

/**
 * Reads {@code proposals}, {@code receipts}, {@code outcomes}, {@code reconciliations} and the gate's
 * {@code conflicts} from the beginning with
 * {@code isolation.level=read_committed} into an {@link ActionBook}. It assigns every partition itself (no consumer
 * group, no committed offsets): each instance rebuilds the whole view, so any instance can serve any review. A
 * record that does not decode or carries an invalid key is skipped with a log line naming topic, partition and offset
 * (never the payload).
 */
public final class BookFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BookFeed.class);

    private final KafkaConsumer<String, byte[]> consumer;
    private final ActionBook book;
    private final String proposals;
    private final String receipts;
    private final String outcomes;
    private final String reconciliations;
    private final String conflicts;
    private final Thread thread;
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    /** The feed's fetches: answered once this much is new, or after {@link #FETCH_MAX_WAIT_MS}. */
    static final int FETCH_MIN_BYTES = 256 * 1024;
    static final int FETCH_MAX_WAIT_MS = 100;
    private volatile boolean running = true;
    private volatile Throwable failure;

    public BookFeed(String bootstrapServers, Map<String, String> clientOverrides, String topicPrefix, ActionBook book) {
        this.consumer = KafkaClients.of(bootstrapServers, clientOverrides).consumer("actiongate-approver-feed")
                // a person opens a review page seconds after its link is out: the feed may lag by a tenth of a
                // second, and under load fetches at most ten times a second instead of once per gate commit
                .defaultTo(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, FETCH_MIN_BYTES)
                .defaultTo(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS)
                .create(new StringDeserializer(), new ByteArrayDeserializer());
        this.book = book;
        this.proposals = topicPrefix + "proposals";
        this.receipts = topicPrefix + "receipts";
        this.outcomes = topicPrefix + "outcomes";
        this.reconciliations = topicPrefix + "reconciliations";
        this.conflicts = topicPrefix + "conflicts";
        this.thread = new Thread(this::run, "approver-feed");
        this.thread.setDaemon(true);
    }

    public BookFeed start() {
        thread.start();
        return this;
    }

    /** Whether the feed has read up to the end offsets it saw when it started. */
    public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isCaughtUp() {
        return caughtUp.getCount() == 0;
    }

    public boolean isRunning() {
        return running && failure == null && thread.isAlive();
    }

    public Throwable failure() {
        return failure;
    }

    private void run() {
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(proposals, receipts, outcomes, reconciliations, conflicts)) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
                if (infos == null || infos.isEmpty()) {
                    throw new IllegalStateException("topic " + topic + " does not exist (run 'topics create')");
                }
                infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> target = new HashMap<>(consumer.endOffsets(partitions));
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    apply(r);
                }
                if (caughtUp.getCount() > 0) {
                    target.entrySet().removeIf(t -> consumer.position(t.getKey()) >= t.getValue());
                    if (target.isEmpty()) {
                        caughtUp.countDown();
                        LOG.info("approver feed caught up: {} actions known", book.size());
                    }
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = e;
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("approver feed stopped: {}", e.toString());
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private void apply(ConsumerRecord<String, byte[]> r) {
        if (ActionKey.tryParse(r.key()).isEmpty()) {
            LOG.debug("skipping {}-{}@{}: not an action key", r.topic(), r.partition(), r.offset());
            return;
        }
        try {
            if (r.topic().equals(proposals)) {
                if (r.value() == null) {
                    book.forgetProposal(r.key());
                    return;
                }
                ActionProposal p = AvroSerdes.serde(ActionProposal.class).deserialize(r.topic(), r.value());
                if (r.key().equals(ActionKey.format(p.getTaskId(), p.getToolCallId()))) {
                    book.proposal(r.key(), p);
                }
            } else if (r.topic().equals(receipts) && r.value() != null) {
                Receipt rc = AvroSerdes.serde(Receipt.class).deserialize(r.topic(), r.value());
                if (r.key().equals(ActionKey.format(rc.getTaskId(), rc.getToolCallId()))) {
                    book.receipt(r.key(), rc);
                }
            } else if (r.topic().equals(outcomes) && r.value() != null) {
                book.outcome(r.key(), AvroSerdes.serde(AttemptOutcome.class).deserialize(r.topic(), r.value()));
            } else if (r.topic().equals(conflicts) && r.value() != null) {
                IdentityConflict c = AvroSerdes.serde(IdentityConflict.class).deserialize(r.topic(), r.value());
                if (r.key().equals(ActionKey.format(c.getTaskId(), c.getToolCallId()))) {
                    book.conflict(r.key(), c);
                }
            } else if (r.topic().equals(reconciliations) && r.value() != null) {
                book.reconciliation(r.key(),
                        AvroSerdes.serde(Reconciliation.class).deserialize(r.topic(), r.value()));
            }
        } catch (AvroDecodeException e) {
            if (!r.topic().equals(proposals)) {
                // receipts, outcomes, conflicts and reconciliations only actiongate writes: a version this release
                // does not read is a newer role's, and the service stops rather than show less than there is
                UnknownFormatException newer = newerVersion(r);
                if (newer != null) {
                    throw newer;
                }
            }
            LOG.warn("skipping {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.reason());
        }
    }

    private UnknownFormatException newerVersion(ConsumerRecord<String, byte[]> r) {
        AvroSerde<?> serde = r.topic().equals(receipts) ? AvroSerdes.serde(Receipt.class)
                : r.topic().equals(outcomes) ? AvroSerdes.serde(AttemptOutcome.class)
                : r.topic().equals(conflicts) ? AvroSerdes.serde(IdentityConflict.class)
                : AvroSerdes.serde(Reconciliation.class);
        return serde.newerVersion(r.value(), r.headers(), r.topic() + "-" + r.partition() + "@" + r.offset());
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
