package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

class FaultPlanTest {

    @Test
    void shouldGenerateTheSameScheduleFromTheSameSeed() {
        FaultPlan a = FaultPlan.generate(42, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000);
        FaultPlan b = FaultPlan.generate(42, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000);
        FaultPlan c = FaultPlan.generate(43, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000);

        assertThat(a.steps()).isEqualTo(b.steps());
        assertThat(a.describe()).isEqualTo(b.describe());
        assertThat(c.steps()).isNotEqualTo(a.steps());
    }

    @Test
    void shouldInjectAtLeastTwentyFaultsInTenMinutesAndCoverEveryKind() {
        FaultPlan plan = FaultPlan.generate(7, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000);

        assertThat(plan.steps()).hasSizeGreaterThanOrEqualTo(20);
        Set<FaultPlan.Kind> kinds = plan.steps().stream().map(FaultPlan.Step::kind).collect(Collectors.toSet());
        assertThat(kinds).isEqualTo(EnumSet.allOf(FaultPlan.Kind.class));
        assertThat(plan.steps()).allSatisfy(step -> {
            assertThat(step.atMs()).isBetween(0L, Duration.ofMinutes(10).toMillis());
            if (step.kind() == FaultPlan.Kind.PAUSE_EXECUTOR) {
                assertThat(step.downMs()).isGreaterThan(6_000); // past the executors' session timeout
            }
        });
        assertThat(plan.steps()).extracting(FaultPlan.Step::atMs).isSorted();
    }
}
