package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.topics.Topics;

/**
 * The policy reader as the gateway, the node's proposals API, the executor's attachment guard and the notifier run
 * it, on a follower consumer: stopping it does not wait for the fetch the broker holds for it (five seconds when
 * nothing is new), so a node that stops does not either, once per reader.
 */
class PolicyFollowerCloseIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @Test
    void shouldStopFollowingWithoutWaitingForTheHeldFetch(TestInfo test) throws Exception {
        String topic = Topics.POLICY.name(TestNames.topicPrefix(test));
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        PolicyTopicReader reader = new PolicyTopicReader(KafkaClients.of(KAFKA.bootstrapServers(), Map.of())
                .consumer("policy-follower-close-it").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer()), topic, null)
                .start(Duration.ofSeconds(30), "policy-follower-close-it");
        assertThat(reader.ready()).isTrue();
        Thread.sleep(300); // the follower's thread polls: its fetch is now held at the broker

        long started = System.nanoTime();
        reader.close();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).as("the follower's fetch wait is %d ms",
                KafkaClients.ConsumerSpec.FOLLOWER_FETCH_MAX_WAIT_MS).isLessThan(Duration.ofMillis(2_500));
    }
}
