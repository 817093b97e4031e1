package io.actiongate.loadtest.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.gate.GateStores;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.Drivers;
import io.actiongate.loadtest.harness.Workload;

/**
 * The gate writes {@link ReadOnlyRecordMix#CURRENT} for one auto-approved read, counted on the gate's own topology:
 * the skeleton writes that mix ({@code SkeletonBenchTest}), so a change to the gate's records fails here until the
 * skeleton (and docs/benchmark.md, "The budget per action") follows.
 */
class GateRecordMixTest {

    @TempDir
    Path dir;

    @Test
    void shouldCountTheGatesRecordsForOneReadAsTheSkeletonsMix() {
        Workload workload = new Workload("mix-task");
        String prefix = Topics.DEFAULT_PREFIX;
        try (Drivers.Run run = Drivers.gate(workload, dir)) {
            run.drainProduced(); // the policy's own records are not the action's
            run.pipe(Topics.PROPOSALS.name(prefix), workload.proposals("m", Workload.READ_TOOL, 1, Drivers.START));
            run.pipe(Topics.OUTCOMES.name(prefix), workload.outcomes("m", 1, Instant.parse("2026-03-01T12:00:01Z")));
            Map<String, Integer> counts = run.drainProduced();

            ReadOnlyRecordMix mix = ReadOnlyRecordMix.CURRENT;
            assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of(
                    Topics.RECEIPTS.name(prefix), mix.receipts(),
                    Topics.ATTEMPTS.name(prefix), mix.reservations(),
                    "bench-gate-" + GateStores.ACTIONS + "-changelog", mix.actionChangelog()));
            assertThat(mix.timerChangelog()).as("no logged timer store").isZero();
            assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(mix.gateRecords());
            assertThat(mix.total() - mix.gateRecords()).as("the executor's outcome").isEqualTo(mix.outcomes());
        }
    }
}
