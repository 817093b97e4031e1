package io.actiongate.storage;

import java.time.Duration;
import java.util.Optional;

import io.actiongate.policy.PolicyTopicReader;

/**
 * Tool schema hashes from the policy topic, as the executor's attachment guard asks for them: the answers of a
 * {@link PolicyTopicReader} (what a GlobalKTable does for the gate, without Kafka Streams). {@link #ready()} turns
 * true once the reader reached the end offsets it saw at start. Run it on its own thread; answers are thread-safe.
 */
public final class PolicyTopicSchemaHashes implements ToolSchemaHashes, Runnable, AutoCloseable {

    private final PolicyTopicReader policy;

    public PolicyTopicSchemaHashes(PolicyTopicReader policy) {
        this.policy = policy;
    }

    /** Assigns every partition of the topic and remembers where "caught up" is. */
    public void assign() {
        policy.assign(Duration.ofSeconds(30));
    }

    @Override
    public void run() {
        policy.run();
    }

    public void pollOnce(Duration timeout) {
        policy.pollOnce(timeout);
    }

    @Override
    public boolean ready() {
        return policy.ready();
    }

    @Override
    public Optional<String> schemaHash(String provider, String toolName) {
        return policy.toolSchemaHash(provider, toolName);
    }

    @Override
    public void close() {
        policy.close();
    }
}
