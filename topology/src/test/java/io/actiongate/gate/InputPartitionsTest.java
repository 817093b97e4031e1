package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The gate routes by one partition count: its four inputs must agree on it. */
class InputPartitionsTest {

    @Test
    void shouldReturnTheCountTheInputsShare() {
        assertThat(InputPartitions.common(Map.of("p", 12, "d", 12, "o", 12, "r", 12))).isEqualTo(12);
        assertThat(InputPartitions.inputTopics("x.")).containsExactly("x.proposals", "x.decisions", "x.outcomes",
                "x.reconciliations");
    }

    @Test
    void shouldRefuseInputsWithDifferentCounts() {
        assertThatThrownBy(() -> InputPartitions.common(Map.of("p", 12, "d", 6, "o", 12, "r", 12)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("same partition count");
    }
}
