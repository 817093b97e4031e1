package io.actiongate.approver.state;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.web.Tokens;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.TopicFollower;
import io.actiongate.serde.AvroSerde;

/**
 * {@link SharedState} on the compacted topic {@code {prefix}approver-state}, of the approval service alone, read
 * from the beginning by every replica. Everything goes to partition 0, so the topic is one total order that every
 * replica applies the same way: a compare-and-set record takes effect only if the key is at its expected version
 * when the log reaches it, a claim only if the key was not claimed before. A writer waits until its own reader has
 * applied its record and then knows whether it won. So two replicas that accept the same one-time code, or consume
 * the same challenge, at the same instant cannot both succeed.
 *
 * <p>Compaction keeps the latest record of a key. A compare-and-set that lost writes the current state again
 * (a snapshot), so the latest record of a key is always its true state; {@code min.compaction.lag.ms} of one hour
 * keeps every record of the last hour (a one-time code lives 90 seconds) whatever compaction does.
 */
public final class KafkaState implements SharedState, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaState.class);

    /** The topic's name after the common prefix (unless {@code approver.state.topic} names another). */
    public static final String TOPIC_SUFFIX = "approver-state";

    /** The default topic name for a topic prefix. */
    public static String defaultTopic(String topicPrefix) {
        return topicPrefix + TOPIC_SUFFIX;
    }

    private static final byte CAS = StateRecord.CAS;
    private static final byte SNAPSHOT = StateRecord.SNAPSHOT;
    private static final byte CLAIM = StateRecord.CLAIM;
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(15);

    private final String topic;
    private final TopicPartition partition;
    private final KafkaProducer<String, byte[]> producer;
    private final StateView view = new StateView();
    private final TopicFollower reader;

    /**
     * The approver's Kafka clients for its state, all created here: {@code clientOverrides} are the {@code kafka.*}
     * pass-through settings, then what correctness needs is set on top.
     */
    public KafkaState(String bootstrapServers, Map<String, String> clientOverrides, String topic) {
        this(bootstrapServers, clientOverrides, topic, true);
    }

    /**
     * The state on {@code topic} as it exists: never created here. What an operator's command works on
     * ({@code approver reset-factors}): a topic missing under the name it resolved means a wrong prefix or cluster,
     * and creating it would make an empty state that no replica reads.
     *
     * @throws IllegalStateException when the topic does not exist or the cluster does not answer
     */
    public static KafkaState existing(String bootstrapServers, Map<String, String> clientOverrides, String topic) {
        requireTopic(bootstrapServers, clientOverrides, topic);
        return new KafkaState(bootstrapServers, clientOverrides, topic, false);
    }

    private KafkaState(String bootstrapServers, Map<String, String> clientOverrides, String topic, boolean create) {
        this.topic = topic;
        this.partition = new TopicPartition(topic, 0);
        if (create) {
            ensureTopic(bootstrapServers, clientOverrides);
        }
        KafkaClients clients = KafkaClients.of(bootstrapServers, clientOverrides);
        this.producer = clients.producer("actiongate-approver-state")
                .defaultTo(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000)
                .defaultTo(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
                .create(new StringSerializer(), new ByteArraySerializer());
        // its one partition, assigned as it is: a topic created a moment ago may not be in the metadata yet
        this.reader = TopicFollower.ofPartitions(clients.consumer("actiongate-approver-state-reader").follower()
                        .create(new StringDeserializer(), new ByteArrayDeserializer()), List.of(partition), this::apply,
                () -> LOG.info("approver state caught up: {} values, {} claims", view.values(), view.claims()),
                Duration.ofMillis(100), "approver-state").start();
    }

    private static void requireTopic(String bootstrapServers, Map<String, String> clientOverrides, String topic) {
        try (Admin admin = KafkaClients.of(bootstrapServers, clientOverrides).admin("actiongate-approver-state-admin")
                .create()) {
            admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                throw new IllegalStateException("the approval service's state topic " + topic + " does not exist at "
                        + bootstrapServers + " (wrong topic.prefix or approver.state.topic? nothing was changed)");
            }
            throw new IllegalStateException("cannot read the state topic " + topic + ": " + e.getCause(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the broker did not answer describing " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void ensureTopic(String bootstrapServers, Map<String, String> clientOverrides) {
        NewTopic t = new NewTopic(topic, Optional.of(1), Optional.empty()).configs(Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(Duration.ofHours(1).toMillis())));
        if (KafkaClients.of(bootstrapServers, clientOverrides).admin("actiongate-approver-state-admin")
                .createTopicIfAbsent(t, "the state topic")) {
            LOG.info("created the approval service's state topic {}", topic);
        }
    }

    public String topic() {
        return topic;
    }

    public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return reader.awaitCaughtUp(timeout);
    }

    public boolean isCaughtUp() {
        return reader.caughtUp();
    }

    public Throwable failure() {
        return reader.failure();
    }

    public boolean isRunning() {
        return reader.isRunning();
    }

    private void apply(ConsumerRecord<String, byte[]> r) {
        String key = r.key();
        if (key == null) {
            return;
        }
        // a record of a type a newer service writes stops the reader here: nothing after it is applied
        if (!view.apply(key, r.value(), r.headers(), AvroSerde.where(topic, r.partition(), r.offset()))) {
            LOG.warn("skipping {}@{}: not a state record", topic, r.offset());
        }
    }

    private long send(String key, byte[] record) {
        try {
            RecordMetadata m = producer.send(new ProducerRecord<>(topic, 0, key, record))
                    .get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return m.offset();
        } catch (ExecutionException | TimeoutException e) {
            throw new StateException("the state topic did not confirm a write: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StateException("interrupted", e);
        }
    }

    private void awaitApplied(long offset) {
        reader.requireApplied(partition, offset, WRITE_TIMEOUT, StateException::new);
    }

    private static byte[] record(byte type, byte[] nonce, long version, byte[] value) {
        return new StateRecord(type, nonce, version, value).bytes();
    }

    @Override
    public Optional<Versioned> get(String key) {
        return view.value(key).map(e -> new Versioned(e.version(), e.value().clone()));
    }

    @Override
    public boolean compareAndSet(String key, long expectedVersion, byte[] value) {
        byte[] nonce = Tokens.randomBytes(16);
        awaitApplied(send(key, record(CAS, nonce, expectedVersion + 1, value)));
        StateView.Entry now = view.value(key).orElse(null);
        if (now != null && Arrays.equals(now.nonce(), nonce)) {
            return true;
        }
        if (now != null) {
            // this record lost: the key's latest record must be its true state again (compaction keeps the latest)
            send(key, record(SNAPSHOT, now.nonce(), now.version(), now.value()));
        }
        return false;
    }

    @Override
    public boolean claim(String key) {
        byte[] nonce = Tokens.randomBytes(16);
        awaitApplied(send(key, record(CLAIM, nonce, 0, new byte[0])));
        byte[] winner = view.claim(key);
        return winner != null && Arrays.equals(winner, nonce);
    }

    @Override
    public boolean claimed(String key) {
        return view.claim(key) != null;
    }

    @Override
    public List<String> keys(String prefix) {
        return view.keys(prefix);
    }

    @Override
    public void forget(String key) {
        awaitApplied(send(key, null));
    }

    @Override
    public void close() {
        reader.close();
        producer.close(Duration.ofSeconds(5));
    }

    /** The state topic could not confirm a read or write in time: whatever asked refuses (fail closed). */
    public static final class StateException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StateException(String message) {
            super(message);
        }

        StateException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
