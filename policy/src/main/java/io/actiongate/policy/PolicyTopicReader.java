package io.actiongate.policy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Integration;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.TopicFollower;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/**
 * The policy topic for a process without Kafka Streams (the MCP gateway, the node's {@code POST /v1/proposals}, the
 * executor's attachment guard): a group-less consumer (a {@link KafkaClients.ConsumerSpec#follower() follower}) that
 * owns every partition from the beginning, what the gate's global store is for the gate, and answers by the same
 * rules as {@link PolicyLookup}. A record is kept by its {@link PolicyKey}; one that does not decode, or a tombstone,
 * makes the key absent (fail closed); a task or origin written without {@code org_id} belongs to {@code defaultOrg}
 * ({@code gate.task.default.org}) exactly as at the gate.
 *
 * <p>Either {@link #start} (catch up, then follow on a daemon thread) or run it as a {@link Runnable} and wait for
 * {@link #ready()}. Answers are thread-safe. If following fails, every tool descriptor is forgotten: without fresh
 * policy nothing is a trusted read any more.
 */
public final class PolicyTopicReader implements PolicyBodies, Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyTopicReader.class);
    /** A poll before the reader caught up: the end it saw may be a marker that no record follows (TopicFollower). */
    private static final Duration CATCH_UP_POLL = Duration.ofMillis(200);
    private final Consumer<String, byte[]> consumer;
    private final String topic;
    private final String defaultOrg;
    private final AvroSerde<PolicyRecord> serde = AvroSerdes.serde(PolicyRecord.class);
    /** Decoded bodies by policy key. */
    private final Map<String, Object> bodies = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> startEnd = new HashMap<>();
    private volatile boolean ready;
    private volatile boolean running = true;
    private volatile boolean failed;
    private final AtomicBoolean looping = new AtomicBoolean();
    private Thread thread;

    /** {@code defaultOrg}: the owner of tasks and origins written without org_id, or null (multi-tenant). */
    public PolicyTopicReader(Consumer<String, byte[]> consumer, String topic, String defaultOrg) {
        this.consumer = consumer;
        this.topic = topic;
        this.defaultOrg = defaultOrg;
    }

    /** Assigns every partition of the topic from the beginning and remembers where "caught up" is. */
    public List<TopicPartition> assign(Duration timeout) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        List<TopicPartition> partitions = infos == null ? List.of()
                : infos.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        startEnd.putAll(consumer.endOffsets(partitions, timeout));
        checkReady();
        return partitions;
    }

    /** Reads the topic up to its end offsets within {@code catchUp}, then follows it on a daemon thread. */
    public PolicyTopicReader start(Duration catchUp, String threadName) {
        if (assign(catchUp).isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist; create the topics first");
        }
        long deadline = System.nanoTime() + catchUp.toNanos();
        while (!ready) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the policy topic was not read within " + catchUp);
            }
            pollOnce(CATCH_UP_POLL);
        }
        thread = new Thread(this::follow, threadName);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Assigns, then follows until {@link #close}. */
    @Override
    public void run() {
        assign(Duration.ofSeconds(30));
        follow();
    }

    private void follow() {
        looping.set(true);
        try {
            while (running) {
                // caught up, a poll ends with a record or its time: longer only wakes an idle reader less often
                pollOnce(ready ? TopicFollower.CAUGHT_UP_POLL : CATCH_UP_POLL);
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            failed = true;
            bodies.keySet().removeIf(k -> k.startsWith(PolicyKey.Kind.TOOL.prefix() + ":"));
            LOG.error("the policy reader of {} stopped; no tool is trusted any more: {}", topic, e.toString());
        } finally {
            consumer.close(KafkaClients.ConsumerSpec.FOLLOWER_CLOSE);
        }
    }

    /** One poll: applies what it returns. */
    public void pollOnce(Duration timeout) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(timeout)) {
            apply(r);
        }
        checkReady();
    }

    private void apply(ConsumerRecord<String, byte[]> r) {
        if (r.key() == null) {
            return;
        }
        if (r.value() == null) {
            bodies.remove(r.key());
            return;
        }
        try {
            bodies.put(r.key(), serde.deserialize(r.topic(), r.value()).getBody());
        } catch (RuntimeException e) {
            // as at the gate: an undecodable record makes its key absent, so a check refuses, never passes
            bodies.remove(r.key());
            LOG.warn("undecodable policy record at {}-{}@{}; {} treated as absent", r.topic(), r.partition(),
                    r.offset(), r.key());
        }
    }

    private void checkReady() {
        if (ready) {
            return;
        }
        for (Map.Entry<TopicPartition, Long> end : startEnd.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return;
            }
        }
        ready = true;
        LOG.info("policy topic {} read: {} record(s)", topic, bodies.size());
    }

    /** Whether the reader caught up with the end offsets it saw when it was assigned. */
    public boolean ready() {
        return ready;
    }

    /** Whether the reader still follows the policy topic (false once its thread stopped or failed). */
    public boolean following() {
        return thread != null && thread.isAlive() && running && !failed;
    }

    @Override
    public String defaultOrg() {
        return defaultOrg;
    }

    /** The org's authorization epoch, or empty when the policy has none. */
    public OptionalLong epoch(String org) {
        return epochRecord(org).map(e -> OptionalLong.of(e.getEpoch())).orElse(OptionalLong.empty());
    }

    /** The task's current version, or empty for a task the policy does not know. */
    public OptionalLong taskVersion(String taskId) {
        return task(taskId).map(t -> OptionalLong.of(t.getVersion())).orElse(OptionalLong.empty());
    }

    /**
     * Whether {@code task} is known and owned by {@code org} ({@link TaskOwnership}, with the default org as at the
     * gate): a task of another org or of nobody never is.
     */
    public boolean ownsTask(String org, String taskId) {
        return TaskOwnership.refusal(org, task(taskId), defaultOrg).isEmpty();
    }

    /** Whether the org's profile is granted {@code tool} and the org's integration of {@code provider} is on. */
    public boolean allows(String org, String profile, String provider, String toolName) {
        return grant(org, profile).map(g -> g.getTools().contains(toolName)).orElse(false)
                && integration(org, provider).map(Integration::getEnabled).orElse(false);
    }

    @Override
    public <T> Optional<T> body(String key, Class<T> type) {
        Object body = bodies.get(key);
        return type.isInstance(body) ? Optional.of(type.cast(body)) : Optional.empty();
    }

    @Override
    public void close() {
        running = false;
        if (!looping.get()) {
            // nobody follows the topic: nobody else will close the consumer
            consumer.close(KafkaClients.ConsumerSpec.FOLLOWER_CLOSE);
            return;
        }
        consumer.wakeup();
        if (thread == null) {
            return;
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
