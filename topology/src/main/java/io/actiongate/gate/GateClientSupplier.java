package io.actiongate.gate;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

import io.actiongate.gate.internal.GroupCommits;
import io.actiongate.kafka.KafkaClients;

/**
 * The Kafka clients of the gate's Kafka Streams: Kafka's own, except that each stream thread's main consumer reports
 * its polls to {@link GroupCommits} (see there: the thread commits as soon as its input is drained) and waits longer
 * while nothing happens ({@link GroupCommitConsumer}), and that its
 * transactional producer leaves out a commit that would change nothing ({@link UnchangedCommitsProducer}), and that
 * the global consumer closes without waiting for its held fetch ({@link #getGlobalConsumer}).
 */
final class GateClientSupplier implements KafkaClientSupplier {

    private final GroupCommits commits;
    private final Duration idlePoll;

    /** @param idlePoll how long a stream thread's poll waits while nothing happens ({@link GroupCommitConsumer}) */
    GateClientSupplier(GroupCommits commits, Duration idlePoll) {
        this.commits = commits;
        this.idlePoll = idlePoll;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        Producer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer());
        return config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG) == null ? producer
                : new UnchangedCommitsProducer(producer);
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        return new GroupCommitConsumer(consumer, commits, idlePoll);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The policy's global consumer, a follower ({@link GateStreams#STREAMS_DEFAULTS}): the broker holds its fetch up to
     * {@link KafkaClients.ConsumerSpec#FOLLOWER_FETCH_MAX_WAIT_MS} when nothing is new. Kafka Streams closes it with
     * Kafka's default timeout, and a closing consumer waits for its fetch session's last request, which the broker
     * answers only after the held fetch: the gate's close would wait for that fetch. It has no group and commits
     * nothing, so it closes as every follower does ({@link KafkaClients.ConsumerSpec#FOLLOWER_CLOSE}). It never
     * pauses, so its polls wait up to the idle poll while nothing comes ({@link IdlePolls}), as a stream thread's do.
     */
    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        IdlePolls idle = new IdlePolls(idlePoll, System::nanoTime);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer()) {
            @Override
            public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
                ConsumerRecords<byte[], byte[]> records = super.poll(idle.idle(timeout) ? idle.idlePoll() : timeout);
                idle.polled(records);
                return records;
            }

            @Override
            public void close() {
                close(KafkaClients.ConsumerSpec.FOLLOWER_CLOSE);
            }
        };
    }
}
