package io.actiongate.storage;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ToolDescriptor;

/**
 * Tool schema hashes read from the compacted {@code policy} topic by a group-less consumer that owns every
 * partition from the beginning (what a GlobalKTable does for the gate, without Kafka Streams). {@link #ready()}
 * turns true once it reached the end offsets it saw at start. Runs on its own thread; answers are thread-safe.
 */
public final class PolicyTopicSchemaHashes implements ToolSchemaHashes, Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyTopicSchemaHashes.class);
    private static final String TOOL_KEY_PREFIX = "tool:";

    private final Consumer<String, byte[]> consumer;
    private final Deserializer<PolicyRecord> policies;
    private final String policyTopic;
    private final Map<String, String> hashes = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> startEnd = new HashMap<>();
    private volatile boolean ready;
    private volatile boolean running = true;

    public PolicyTopicSchemaHashes(Consumer<String, byte[]> consumer, Deserializer<PolicyRecord> policies,
                                   String policyTopic) {
        this.consumer = consumer;
        this.policies = policies;
        this.policyTopic = policyTopic;
    }

    /** Assigns every partition of the topic and remembers where "caught up" is. */
    public void assign() {
        List<PartitionInfo> infos = consumer.partitionsFor(policyTopic, Duration.ofSeconds(30));
        List<TopicPartition> partitions = infos == null ? List.of()
                : infos.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        startEnd.putAll(consumer.endOffsets(partitions));
        checkReady();
    }

    @Override
    public void run() {
        try {
            assign();
            while (running) {
                pollOnce(Duration.ofMillis(500));
            }
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } finally {
            consumer.close();
        }
    }

    public void pollOnce(Duration timeout) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
            apply(record);
        }
        checkReady();
    }

    private void apply(ConsumerRecord<String, byte[]> record) {
        String key = record.key();
        if (key == null || !key.startsWith(TOOL_KEY_PREFIX)) {
            return;
        }
        if (record.value() == null) {
            hashes.remove(key);
            return;
        }
        try {
            PolicyRecord policy = policies.deserialize(record.topic(), record.value());
            if (policy.getBody() instanceof ToolDescriptor tool) {
                hashes.put(TOOL_KEY_PREFIX + tool.getProvider() + ":" + tool.getToolName(), tool.getSchemaHash());
            }
        } catch (RuntimeException e) {
            // an undecodable descriptor counts as absent: the check then refuses, never passes
            hashes.remove(key);
            LOG.warn("undecodable policy record at {}-{}@{}; tool treated as unknown", record.topic(),
                    record.partition(), record.offset());
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
        LOG.info("tool schema hashes loaded: {} descriptor(s)", hashes.size());
    }

    @Override
    public boolean ready() {
        return ready;
    }

    @Override
    public Optional<String> schemaHash(String provider, String toolName) {
        return Optional.ofNullable(hashes.get(TOOL_KEY_PREFIX + provider + ":" + toolName));
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}
