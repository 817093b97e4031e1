package io.actiongate.gate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.topics.Topics;

/**
 * The partition count the gate routes by: the count of its four action-keyed input topics, which must agree
 * (they are read by one sub-topology, and a key's home partition {@code murmur2 % count} must mean the same task
 * on each). Read once when the gate is created; a change of the count needs a new deployment (see DESIGN.md).
 */
public final class InputPartitions {

    private InputPartitions() {
    }

    /** The action-keyed inputs under {@code prefix}. */
    public static List<String> inputTopics(String prefix) {
        return List.of(Topics.PROPOSALS.name(prefix), Topics.DECISIONS.name(prefix), Topics.OUTCOMES.name(prefix),
                Topics.RECONCILIATIONS.name(prefix));
    }

    /** Describes the input topics with a short-lived admin client built from the gate's client settings. */
    public static int discover(GateConfig config, Duration timeout) {
        try (Admin admin = KafkaClients.of(config.kafkaClientProperties()).admin("actiongate-gate-partitions")
                .set(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis())
                .set(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000))
                .create()) {
            return discover(admin, config.topicPrefix(), timeout);
        }
    }

    /**
     * The common partition count of the input topics. Throws {@link IllegalStateException} when one is missing or
     * when their counts differ: routing by a wrong count would send records to tasks that do not own them.
     */
    public static int discover(Admin admin, String prefix, Duration timeout) {
        List<String> topics = inputTopics(prefix);
        Map<String, Integer> counts = new TreeMap<>();
        DescribeTopicsResult result = admin.describeTopics(topics);
        try {
            Map<String, TopicDescription> described = result.allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            described.forEach((name, d) -> counts.put(name, d.partitions().size()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new IllegalStateException("an input topic of the gate does not exist ("
                        + String.join(", ", topics) + "); create them first (actiongate topics create)", e.getCause());
            }
            Throwable cause = e.getCause() instanceof TopicAuthorizationException ? denied(result) : e.getCause();
            throw new IllegalStateException("cannot describe the gate's input topics: "
                    + KafkaFailures.describe(cause, KafkaFailures.Access.DESCRIBE), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot describe the gate's input topics within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing the gate's input topics", e);
        }
        return common(counts);
    }

    /** The admin client reports a denied describe per topic, without naming it in the error: name them here. */
    private static TopicAuthorizationException denied(DescribeTopicsResult result) {
        Set<String> denied = new TreeSet<>();
        result.topicNameValues().forEach((topic, future) -> {
            if (!future.isCompletedExceptionally()) {
                return;
            }
            try {
                future.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicAuthorizationException) {
                    denied.add(topic);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return new TopicAuthorizationException(denied);
    }

    /** The one count of {@code counts} (topic to partition count); throws when they differ. */
    static int common(Map<String, Integer> counts) {
        if (counts.values().stream().distinct().count() != 1) {
            throw new IllegalStateException("the gate's input topics must have the same partition count, found "
                    + counts + "; a key's home partition would name different tasks");
        }
        return counts.values().iterator().next();
    }
}
