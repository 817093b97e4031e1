package io.actiongate.notifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions;
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
import io.actiongate.avro.Receipt;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.topics.Topics;

/**
 * Reads {@code receipts} and {@code proposals} from the beginning, committed records only, every partition assigned
 * (no consumer group, no offsets): each instance rebuilds the whole {@link WaitingBook}, so any instance can tell of
 * any action, and the ledger decides which one does. A record that does not decode, carries an invalid key or names
 * other ids than its key is skipped with a line naming topic, partition and offset, never its payload.
 */
final class WaitingFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WaitingFeed.class);

    private final KafkaConsumer<String, byte[]> consumer;
    private final WaitingBook book;
    private final String proposals;
    private final String receipts;
    private final Thread thread;
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Throwable failure;

    WaitingFeed(KafkaClients clients, String topicPrefix, WaitingBook book) {
        this.consumer = clients.consumer("actiongate-notifier-feed")
                .create(new StringDeserializer(), new ByteArrayDeserializer());
        this.book = book;
        this.proposals = Topics.PROPOSALS.name(topicPrefix);
        this.receipts = Topics.RECEIPTS.name(topicPrefix);
        this.thread = new Thread(this::run, "notifier-feed");
        this.thread.setDaemon(true);
    }

    WaitingFeed start() {
        thread.start();
        return this;
    }

    boolean caughtUp() {
        return caughtUp.getCount() == 0;
    }

    boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean isRunning() {
        return running && failure == null && thread.isAlive();
    }

    Throwable failure() {
        return failure;
    }

    private void run() {
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(receipts, proposals)) {
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
                        LOG.info("notifier feed caught up: {} actions known, {} waiting", book.size(),
                                book.waiting().size());
                    }
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = e;
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("the notifier's feed stopped: {}", e.toString());
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
            } else if (r.value() != null) {
                Receipt receipt = AvroSerdes.serde(Receipt.class).deserialize(r.topic(), r.value());
                if (r.key().equals(ActionKey.format(receipt.getTaskId(), receipt.getToolCallId()))) {
                    book.receipt(r.key(), receipt);
                }
            }
        } catch (AvroDecodeException e) {
            LOG.warn("skipping {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.reason());
        }
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
