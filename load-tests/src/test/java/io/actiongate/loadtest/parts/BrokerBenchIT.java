package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.broker.EmbeddedKafkaBroker;

/**
 * Part 2 with a handful of actions, so a renamed setting of the node, executor or connector cannot silently turn
 * the end-to-end row into a measurement of timeouts. Asserts completion only, never speed.
 */
@Tag("system")
class BrokerBenchIT {

    private static final int ACTIONS = 40;

    @TempDir
    Path stateDir;

    @Test
    void shouldCompleteEveryActionOnBothSidesWithOneProviderRequestEach() throws Exception {
        BrokerBench.Result result = run(new BrokerBench(ACTIONS, 2, stateDir));

        assertThat(result.baseline().completed()).as("baseline outputs").isEqualTo(ACTIONS);
        assertThat(result.gate().completed()).as("SUCCEEDED receipts").isEqualTo(ACTIONS);
        assertThat(result.providerRequests()).as("provider requests, warm-up included")
                .isEqualTo(ACTIONS + result.warmup());
        assertThat(result.complete()).isTrue();
        assertThat(result.gate().p(50)).isPositive();
    }

    @Test
    void shouldCompleteEveryMisroutedActionOnceThroughTheGatesHop() throws Exception {
        BrokerBench.Result result = run(new BrokerBench(ACTIONS, 2, stateDir, java.util.Map.of(), true));

        assertThat(result.misrouted()).isTrue();
        assertThat(result.gate().completed()).as("SUCCEEDED receipts of misrouted proposals").isEqualTo(ACTIONS);
        assertThat(result.providerRequests()).as("one provider request each, warm-up included")
                .isEqualTo(ACTIONS + result.warmup());
        assertThat(result.complete()).isTrue();
    }

    private static BrokerBench.Result run(BrokerBench bench) throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().start()) {
            return bench.run(broker.bootstrapServers());
        }
    }
}
