package io.actiongate.notifier;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Receipt;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.TopicFollower;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.topics.Topics;

/**
 * Reads {@code receipts} and {@code proposals} from the beginning, committed records only, every partition assigned
 * (no consumer group, no offsets): each instance rebuilds the whole {@link WaitingBook}, so any instance can tell of
 * any action, and the ledger decides which one does. A record that does not decode, carries an invalid key or names
 * other ids than its key is skipped with a line naming topic, partition and offset, never its payload; but a receipt
 * of a version this release does not read, which only a newer gate writes, stops the feed with the one line of a
 * refused downgrade.
 */
final class WaitingFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WaitingFeed.class);

    private static final AvroSerde<ActionProposal> PROPOSALS = AvroSerdes.serde(ActionProposal.class);
    private static final AvroSerde<Receipt> RECEIPTS = AvroSerdes.serde(Receipt.class);

    /**
     * A notice may go a second after the action began waiting: under load the feed reads on a second after what it
     * last read ({@link TopicFollower#paced}) instead of once per gate commit, and idle it waits in one held fetch.
     */
    static final Duration SPACING = Duration.ofSeconds(1);

    private final WaitingBook book;
    private final String proposals;
    private final TopicFollower follower;

    WaitingFeed(KafkaClients clients, String topicPrefix, WaitingBook book) {
        this.book = book;
        this.proposals = Topics.PROPOSALS.name(topicPrefix);
        this.follower = new TopicFollower(clients.consumer("actiongate-notifier-feed").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer()),
                List.of(Topics.RECEIPTS.name(topicPrefix), proposals), this::apply,
                () -> LOG.info("notifier feed caught up: {} actions known, {} waiting", book.size(),
                        book.waiting().size()), Duration.ofMillis(200), "notifier-feed").paced(SPACING);
    }

    WaitingFeed start() {
        follower.start();
        return this;
    }

    boolean caughtUp() {
        return follower.caughtUp();
    }

    boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return follower.awaitCaughtUp(timeout);
    }

    boolean isRunning() {
        return follower.isRunning();
    }

    Throwable failure() {
        return follower.failure();
    }

    private void apply(ConsumerRecord<String, byte[]> r) {
        if (ActionKey.tryParse(r.key()).isEmpty()) {
            LOG.debug("skipping {}-{}@{}: not an action key", r.topic(), r.partition(), r.offset());
            return;
        }
        boolean proposal = r.topic().equals(proposals);
        if (r.value() == null) {
            if (proposal) {
                book.forgetProposal(r.key()); // a receipt tombstone changes nothing: its action is long gone
            }
            return;
        }
        try {
            if (proposal) {
                ActionProposal p = PROPOSALS.deserialize(r.topic(), r.value());
                if (isKeyOf(r, p.getTaskId(), p.getToolCallId())) {
                    book.proposal(r.key(), p);
                }
                return;
            }
            Receipt receipt = RECEIPTS.deserialize(r.topic(), r.value());
            if (isKeyOf(r, receipt.getTaskId(), receipt.getToolCallId())) {
                book.receipt(r.key(), receipt);
            }
        } catch (AvroDecodeException e) {
            if (!proposal) {
                // only the gate writes receipts: a version this release does not read is a newer gate's, and the
                // notifier stops rather than tell of an action it misread (proposals come from outside: skipped)
                UnknownFormatException newer = RECEIPTS.newerVersion(r);
                if (newer != null) {
                    throw newer;
                }
            }
            LOG.warn("skipping {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.reason());
        }
    }

    /** Whether the record's key is the action key of the ids its value names (else it is no record of them). */
    private static boolean isKeyOf(ConsumerRecord<String, byte[]> r, String taskId, String toolCallId) {
        return r.key().equals(ActionKey.format(taskId, toolCallId));
    }

    @Override
    public void close() {
        follower.close();
    }
}
