package io.actiongate.approver.decision;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The partition count a decision id is chosen by: a form post must never wait for the broker to tell it. Against a
 * broker that does not answer, {@link DecisionPublisher#partitions()} returns 1 at once (the decision then only
 * takes the gate's hops), however long the producer would block on its metadata.
 */
class DecisionPublisherTest {

    @Test
    void shouldNotWaitForTheBrokerToChooseADecisionId() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // closed again: nothing listens there
        }
        SigningKey key = SigningKey.of("k", KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate());
        try (DecisionPublisher publisher = new DecisionPublisher("127.0.0.1:" + port,
                Map.of("max.block.ms", "30000"), "t.", key, Duration.ofMinutes(5))) {
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                int partitions = publisher.partitions();
                long tookMs = (System.nanoTime() - start) / 1_000_000;

                assertThat(partitions).isEqualTo(1);
                assertThat(tookMs).as("partitions() blocked on the broker's metadata").isLessThan(1_000);
            }
        }
    }
}
