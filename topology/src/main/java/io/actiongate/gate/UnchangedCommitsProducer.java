package io.actiongate.gate;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * A stream thread's transactional producer that leaves out a transaction which would change nothing: one that sent no
 * record and whose offsets are exactly those this producer last committed, in the same group generation. Kafka
 * Streams commits after every wall-clock punctuation whether or not it wrote anything, so an idle gate would otherwise
 * commit a transaction (offsets, {@code EndTxn}, a marker) at each tick of its timers: a broker round of requests and
 * log writes a second for nothing.
 *
 * <p>To leave one out, it begins the producer's transaction only when the transaction gets something: its first
 * record, or offsets that changed. Until then nothing exists to commit, and a commit of it is a no-op. Beginning a
 * transaction changes only the client's own state (the coordinator hears of it at its first record or offsets), so
 * beginning it later changes nothing on the wire, and a failure to begin reaches Kafka Streams as a failure of that
 * send or of those offsets, which it handles the same way. What is committed is unchanged: a skipped commit would
 * have written the offsets already committed. Anything unusual commits as before: a record sent, an offset moved, a
 * partition not committed by this producer yet, another generation or member, an abort or a failed commit (after
 * which nothing is taken as committed). A zombie that only ticks learns it is fenced at its next write instead of its
 * next tick; it has written nothing in between. Made by {@link GateClientSupplier}.
 */
final class UnchangedCommitsProducer implements Producer<byte[], byte[]> {

    private final Producer<byte[], byte[]> delegate;
    /** The offsets this producer committed last, per partition; empty when unknown. */
    private final Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
    private ConsumerGroupMetadata committedGroup;
    /** Kafka Streams began a transaction that {@link #delegate} has not begun yet: nothing is in it so far. */
    private boolean begun;
    /** A transaction of {@link #delegate} is open (begun, not yet committed or aborted). */
    private boolean open;
    /** The offsets sent in the open transaction, remembered as committed when it commits. */
    private final Map<TopicPartition, OffsetAndMetadata> sending = new HashMap<>();
    private ConsumerGroupMetadata sendingGroup;
    private long skipped;

    UnchangedCommitsProducer(Producer<byte[], byte[]> delegate) {
        this.delegate = delegate;
    }

    /** How many commits were left out. */
    long skipped() {
        return skipped;
    }

    @Override
    public void initTransactions() {
        forget();
        begun = false;
        open = false;
        delegate.initTransactions();
    }

    @Override
    public void beginTransaction() {
        if (open) {
            delegate.beginTransaction(); // refused, as it would be without this producer
        }
        begun = true;
    }

    /** Begins {@link #delegate}'s transaction if Kafka Streams began one: something is about to go into it. */
    private void open() {
        if (begun && !open) {
            delegate.beginTransaction();
            open = true;
        }
    }

    @Override
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
                                         ConsumerGroupMetadata groupMetadata) {
        if (!open && groupMetadata.equals(committedGroup) && unchanged(offsets)) {
            return;
        }
        open();
        delegate.sendOffsetsToTransaction(offsets, groupMetadata);
        sending.putAll(offsets);
        sendingGroup = groupMetadata;
    }

    private boolean unchanged(Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            if (!e.getValue().equals(committed.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void commitTransaction() {
        if (begun && !open) {
            begun = false;
            skipped++;
            return; // nothing went into it
        }
        try {
            delegate.commitTransaction();
        } catch (RuntimeException e) {
            forget();
            throw e;
        }
        begun = false;
        open = false;
        if (sendingGroup != null && !sendingGroup.equals(committedGroup)) {
            committed.clear();
        }
        committed.putAll(sending);
        committedGroup = sendingGroup != null ? sendingGroup : committedGroup;
        sending.clear();
        sendingGroup = null;
    }

    @Override
    public void abortTransaction() {
        forget();
        boolean wasOpen = open;
        begun = false;
        open = false;
        if (wasOpen) {
            delegate.abortTransaction();
        }
    }

    /** Takes nothing as committed any more: the next offsets are sent whatever they are. */
    private void forget() {
        committed.clear();
        committedGroup = null;
        sending.clear();
        sendingGroup = null;
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
        return send(record, null);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        try {
            open();
        } catch (KafkaException e) {
            // Kafka Streams reads a failed send's cause: a fenced producer then means a migrated task, as it does
            // when beginning the transaction fails
            throw new KafkaException("could not begin the transaction of this send", e);
        }
        return delegate.send(record, callback);
    }

    @Override
    public void flush() {
        delegate.flush();
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return delegate.partitionsFor(topic);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return delegate.metrics();
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return delegate.clientInstanceId(timeout);
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        delegate.registerMetricForSubscription(metric);
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        delegate.unregisterMetricFromSubscription(metric);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void close(Duration timeout) {
        delegate.close(timeout);
    }
}
