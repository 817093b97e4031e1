package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertThat(kinds).isEqualTo(EnumSet.copyOf(FaultPlan.Kind.SINGLE));
        assertThat(plan.steps()).allSatisfy(step -> {
            assertThat(step.atMs()).isBetween(0L, Duration.ofMinutes(10).toMillis());
            if (step.kind() == FaultPlan.Kind.PAUSE_EXECUTOR) {
                assertThat(step.downMs()).isGreaterThan(6_000); // past the executors' session timeout
            }
        });
        assertThat(plan.steps()).extracting(FaultPlan.Step::atMs).isSorted();
    }

    @Test
    void shouldDrawTheSameSingleBrokerScheduleAsTheCommittedTenMinuteReport() throws Exception {
        FaultPlan plan = FaultPlan.generate(7, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000);

        // the cluster kinds were appended: a single-broker seed still draws what it drew before them
        assertThat(plan.describe()).isEqualTo(Files.readString(Path.of("reports", "seed-7-10m",
                "fault-schedule.txt"), StandardCharsets.UTF_8));
        assertThat(plan.steps()).noneMatch(s -> s.kind().clusterOnly());
    }

    @Test
    void shouldCoverEveryClusterFaultInTheFirstRoundOfAClusterRun() {
        FaultPlan plan = FaultPlan.generate(28, Duration.ofMinutes(8), Duration.ofSeconds(20), 6_000, true, true,
                true);

        Set<FaultPlan.Kind> kinds = plan.steps().stream().map(FaultPlan.Step::kind).collect(Collectors.toSet());
        assertThat(kinds).isEqualTo(EnumSet.allOf(FaultPlan.Kind.class));
        assertThat(plan.steps()).filteredOn(s -> s.kind() == FaultPlan.Kind.PAUSE_BROKER).allSatisfy(s ->
                assertThat(s.downMs()).isGreaterThan(ClusterNodeMain.BROKER_SESSION_TIMEOUT_MS));
        assertThat(plan.describe()).contains("kill -9 the transaction coordinator", "kill -9 the active controller",
                "kill -9 the leader of gate changelog partition", "rolling restart", "SIGSTOP broker node",
                "kill -9 the approval service replica", "off from its peers", "off from everyone",
                "kill -9 the MCP gateway");
    }

    @Test
    void shouldKillTheMcpGatewayInASingleBrokerRunWithTheGatewayAndNeverWithoutIt() {
        FaultPlan with = FaultPlan.generate(7, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000, false, false,
                true);
        FaultPlan without = FaultPlan.generate(7, Duration.ofMinutes(10), Duration.ofSeconds(20), 6_000);

        Set<FaultPlan.Kind> kinds = with.steps().stream().map(FaultPlan.Step::kind).collect(Collectors.toSet());
        java.util.List<FaultPlan.Kind> expected = new java.util.ArrayList<>(FaultPlan.Kind.SINGLE);
        expected.add(FaultPlan.Kind.KILL_GATEWAY);
        assertThat(kinds).isEqualTo(EnumSet.copyOf(expected));
        assertThat(FaultPlan.Kind.KILL_GATEWAY.clusterOnly()).isFalse();
        assertThat(without.steps()).noneMatch(s -> s.kind() == FaultPlan.Kind.KILL_GATEWAY);
    }

    @Test
    void shouldKillTheMcpGatewayAndEveryActiongateRoleButNotTheSingleBrokerInTheShortSeededCiRun() {
        // ChaosIT's schedule: 75 s, a fault every 10 s, seven faults
        FaultPlan plan = FaultPlan.generate(ChaosIT.SEED, Duration.ofSeconds(75), Duration.ofSeconds(10), 6_000,
                false, false, true);

        assertThat(plan.steps()).extracting(FaultPlan.Step::kind).contains(FaultPlan.Kind.KILL_GATEWAY,
                FaultPlan.Kind.KILL_GATE, FaultPlan.Kind.KILL_EXECUTOR, FaultPlan.Kind.KILL_RECONCILER,
                FaultPlan.Kind.PAUSE_EXECUTOR, FaultPlan.Kind.PROVIDER_TIMEOUT_AFTER_APPLY)
                // a single broker's kill -9 can leave a hanging transaction (Kafka 4.4; docs/chaos.md)
                .doesNotContain(FaultPlan.Kind.KILL_BROKER);
    }

    @Test
    void shouldDrawNoPartitionWithoutNetworkNamespaces() {
        FaultPlan plan = FaultPlan.generate(28, Duration.ofMinutes(30), Duration.ofSeconds(20), 6_000, true, false);

        assertThat(plan.steps()).noneMatch(s -> s.kind().needsNamespaces())
                .anyMatch(s -> s.kind() == FaultPlan.Kind.KILL_APPROVER);
    }

    @Test
    void shouldInjectEveryKindAtLeastTwiceInThirtyClusterMinutes() {
        // the documented 30-minute command (docs/chaos.md): --cluster --network-namespaces --fault-every 30s
        FaultPlan plan = FaultPlan.generate(28, Duration.ofMinutes(30), Duration.ofSeconds(30), 6_000, true, true,
                true);

        java.util.Map<FaultPlan.Kind, Long> counts = plan.steps().stream()
                .collect(Collectors.groupingBy(FaultPlan.Step::kind, Collectors.counting()));
        assertThat(counts.keySet()).isEqualTo(EnumSet.allOf(FaultPlan.Kind.class));
        assertThat(counts.values()).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(2));
    }
}
