package io.actiongate.topics;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;

/**
 * One topic of the contract (docs/contract.md section 2): its name without the configurable prefix, its key and
 * value serdes, and its cleanup policy. Immutable.
 */
public record TopicSpec<K, V>(String suffix, Serde<K> keySerde, Serde<V> valueSerde, Cleanup cleanup,
                              Duration retention) {

    /** How Kafka cleans the topic. */
    public enum Cleanup {
        COMPACT(TopicConfig.CLEANUP_POLICY_COMPACT),
        DELETE(TopicConfig.CLEANUP_POLICY_DELETE);

        private final String policy;

        Cleanup(String policy) {
            this.policy = policy;
        }

        public String policy() {
            return policy;
        }
    }

    /** The full topic name under {@code prefix}, e.g. {@code actiongate.proposals}. */
    public String name(String prefix) {
        return prefix + suffix;
    }

    /** The topic-level configuration actiongate creates the topic with. */
    public Map<String, String> configs() {
        if (cleanup == Cleanup.DELETE) {
            return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, cleanup.policy(),
                    TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
        }
        return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, cleanup.policy());
    }
}
