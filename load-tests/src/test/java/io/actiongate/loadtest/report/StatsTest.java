package io.actiongate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void shouldTakeTheLowerMiddleAsMedianOfAnEvenCount() {
        assertThat(Stats.median(List.of(40L, 10L, 30L, 20L))).isEqualTo(20L);
        assertThat(Stats.median(List.of(3L, 1L, 2L))).isEqualTo(2L);
    }

    @Test
    void shouldUseNearestRankPercentiles() {
        List<Long> hundred = java.util.stream.LongStream.rangeClosed(1, 100).boxed().toList();

        assertThat(Stats.percentile(hundred, 95)).isEqualTo(95L);
        assertThat(Stats.percentile(hundred, 99)).isEqualTo(99L);
        assertThat(Stats.percentile(hundred, 100)).isEqualTo(100L);
        assertThat(Stats.percentile(List.of(7L), 99)).isEqualTo(7L);
    }
}
