package io.actiongate.approver.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;

/**
 * The approval service's shared state on a real broker: two replicas agree on every compare-and-set and claim, and
 * closing one does not wait for the fetch its reader has the broker hold (an operator's {@code approver
 * reset-factors} took five seconds more for it, a node's shutdown the same per reader).
 */
class KafkaStateIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final Duration CATCH_UP = Duration.ofSeconds(30);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldLetOneOfTwoReplicasWinEachCompareAndSetAndClaim(TestInfo test) throws Exception {
        String topic = KafkaState.defaultTopic(TestNames.topicPrefix(test));
        try (KafkaState a = new KafkaState(KAFKA.bootstrapServers(), Map.of(), topic);
             KafkaState b = new KafkaState(KAFKA.bootstrapServers(), Map.of(), topic)) {
            assertThat(a.awaitCaughtUp(CATCH_UP)).isTrue();
            assertThat(b.awaitCaughtUp(CATCH_UP)).isTrue();

            assertThat(a.compareAndSet("k", 0, bytes("from a"))).isTrue();
            assertThat(b.compareAndSet("k", 0, bytes("from b"))).as("b expected an absent key").isFalse();
            assertThat(b.get("k")).hasValueSatisfying(v -> {
                assertThat(v.version()).isEqualTo(1);
                assertThat(v.value()).isEqualTo(bytes("from a"));
            });
            assertThat(b.compareAndSet("k", 1, bytes("from b"))).isTrue();

            assertThat(b.claim("code")).isTrue();
            assertThat(a.claim("code")).as("a second claim, on the other replica").isFalse();
            assertThat(a.claimed("code")).isTrue();
        }
    }

    @Test
    void shouldCloseWithoutWaitingForTheFetchTheBrokerHolds(TestInfo test) throws Exception {
        String topic = KafkaState.defaultTopic(TestNames.topicPrefix(test));
        KafkaState state = new KafkaState(KAFKA.bootstrapServers(), Map.of(), topic);
        assertThat(state.awaitCaughtUp(CATCH_UP)).isTrue();
        // the reader has just applied this write, so its next fetch is held at the broker for up to five seconds
        assertThat(state.compareAndSet("k", 0, bytes("v"))).isTrue();

        long started = System.nanoTime();
        state.close();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).as("the follower's fetch wait is %d ms",
                KafkaClients.ConsumerSpec.FOLLOWER_FETCH_MAX_WAIT_MS).isLessThan(Duration.ofMillis(2_500));
        assertThat(state.isRunning()).isFalse();
    }
}
