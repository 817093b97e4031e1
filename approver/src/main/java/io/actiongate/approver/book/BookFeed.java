package io.actiongate.approver.book;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
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
import io.actiongate.kafka.TopicFollower;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.topics.Topics;

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

    private final ActionBook book;
    private final String proposals;
    private final String receipts;
    private final String outcomes;
    private final String reconciliations;
    private final String conflicts;
    private final TopicFollower follower;
    /**
     * A person opens a review page seconds after its link is out: under load the feed reads on a quarter of a second
     * after what it last read ({@link TopicFollower#paced}), so it fetches a few times a second instead of once per
     * gate commit, and idle it waits in one held fetch, so that the first record of a new action is read at once.
     */
    static final Duration SPACING = Duration.ofMillis(250);

    public BookFeed(String bootstrapServers, Map<String, String> clientOverrides, String topicPrefix, ActionBook book) {
        this.book = book;
        this.proposals = Topics.PROPOSALS.name(topicPrefix);
        this.receipts = Topics.RECEIPTS.name(topicPrefix);
        this.outcomes = Topics.OUTCOMES.name(topicPrefix);
        this.reconciliations = Topics.RECONCILIATIONS.name(topicPrefix);
        this.conflicts = Topics.CONFLICTS.name(topicPrefix);
        this.follower = new TopicFollower(KafkaClients.of(bootstrapServers, clientOverrides)
                .consumer("actiongate-approver-feed").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer()),
                List.of(proposals, receipts, outcomes, reconciliations, conflicts), this::apply,
                () -> LOG.info("approver feed caught up: {} actions known", book.size()), Duration.ofMillis(200),
                "approver-feed").paced(SPACING);
    }

    public BookFeed start() {
        follower.start();
        return this;
    }

    /** Whether the feed has read up to the end offsets it saw when it started. */
    public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return follower.awaitCaughtUp(timeout);
    }

    public boolean isCaughtUp() {
        return follower.caughtUp();
    }

    public boolean isRunning() {
        return follower.isRunning();
    }

    public Throwable failure() {
        return follower.failure();
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
        return serde.newerVersion(r);
    }

    @Override
    public void close() {
        follower.close();
    }
}
