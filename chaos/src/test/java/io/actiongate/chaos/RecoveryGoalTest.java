package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The time-to-recover goal line of the chaos report (docs/chaos.md, "Time to recover"). */
class RecoveryGoalTest {

    private static ChaosRun.FaultRecord fault(int i, String kind, long overMs, long recoveredMs, long slowestMs) {
        return new ChaosRun.FaultRecord(i, kind, kind, "t", 1_000, 1_000 + overMs, recoveredMs, slowestMs);
    }

    @Test
    void shouldMeetTheGoalWhenEveryFaultRecoversWithinThirtySeconds() {
        RecoveryGoal goal = RecoveryGoal.of(List.of(fault(0, "KILL_GATE", 3_000, 4_000, 5_000),
                fault(1, "KILL_BROKER", 9_000, 29_000, 12_000), fault(2, "PROVIDER_429", 0, 800, -1)));

        assertThat(goal.met()).isTrue();
        assertThat(goal.maxMs()).isEqualTo(29_000);
        assertThat(goal.p95Ms()).isEqualTo(29_000);
        assertThat(goal.describe()).isEqualTo("Time to recover: goal every fault within 30 s; p95 29.0 s, max 29.0 s "
                + "over 3 fault(s): **met**");
    }

    @Test
    void shouldNameEachFaultThatMissedItAndWhatTookTheTime() {
        RecoveryGoal goal = RecoveryGoal.of(List.of(fault(3, "KILL_CHANGELOG_LEADER", 11_000, 41_000, 20_000),
                fault(4, "KILL_GATE", 2_000, -1, -1)));

        assertThat(goal.met()).isFalse();
        assertThat(goal.describe()).contains("**not met**, 2 missed it: #3 KILL_CHANGELOG_LEADER 41.0 s (30.0 s after "
                + "the fault was over); #4 KILL_GATE: no action proposed after it settled");
    }

    @Test
    void shouldJudgeAFaultLongerThanTheGoalByDesignAfterItsEnd() {
        RecoveryGoal met = RecoveryGoal.of(List.of(fault(7, "ROLLING_RESTART", 32_300, 32_800, 3_100)));
        RecoveryGoal stalled = RecoveryGoal.of(List.of(fault(7, "ROLLING_RESTART", 32_300, 32_800, 31_000)));

        assertThat(met.met()).isTrue();
        assertThat(met.describe()).contains("Longer than the goal by design, judged after their end: #7 "
                + "ROLLING_RESTART lasted 32.3 s, recovered 0.5 s after its end, slowest action proposed during it 3.1 s");
        assertThat(stalled.met()).as("an action proposed during it waited longer than the goal").isFalse();
    }

    @Test
    void shouldNotCountAStepTheLoadProposedNothingAfterAsMissed() {
        RecoveryGoal goal = RecoveryGoal.of(List.of(fault(1, "UPGRADE_GATE", 14_000, 20_000, 9_000),
                fault(12, "ROLLBACK_DRILL", 25_000, ChaosRun.FaultRecord.NOTHING_PROPOSED_AFTER, 4_000)));

        assertThat(goal.met()).isTrue();
        assertThat(goal.measured()).isEqualTo(1);
        assertThat(goal.describe()).isEqualTo("Time to recover: goal every fault within 30 s; p95 20.0 s, max 20.0 s "
                + "over 1 fault(s): **met**. Not judged, the load proposed nothing after them: #12 ROLLBACK_DRILL");
    }

    @Test
    void shouldCountAFaultWhoseLaterActionsNeverSettledAsMissed() {
        RecoveryGoal goal = RecoveryGoal.of(List.of(fault(4, "KILL_GATE", 2_000,
                ChaosRun.FaultRecord.NOT_RECOVERED, -1)));

        assertThat(goal.met()).isFalse();
        assertThat(goal.unjudged()).isEmpty();
    }
}
