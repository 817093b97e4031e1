package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** How {@link ChaosRun#recoveryTimes} reads the load's actions around a fault (docs/chaos.md, "Time to recover"). */
class RecoveryTimesTest {

    private static final long START = 1_000_000;

    /** A rolling restart from t+10 s to t+42 s. */
    private static final ChaosRun.FaultRecord RESTART = new ChaosRun.FaultRecord(7, "ROLLING_RESTART", "restart",
            "every broker", 10_000, 42_000, -1);

    private static Load.Action action(String call, long submittedAt, long settledAt, boolean viaService) {
        Load.Action a = new Load.Action("T/" + call, call, Load.Kind.APPROVED, "post_update", call, START + submittedAt,
                null);
        a.settledAtMs = settledAt == 0 ? 0 : START + settledAt;
        a.viaService = viaService;
        return a;
    }

    @Test
    void shouldMeasureFromTheInjectionToTheFirstSettledActionProposedAfterTheFault() {
        List<ChaosRun.FaultRecord> measured = ChaosRun.recoveryTimes(List.of(RESTART), List.of(
                action("during", 12_000, 30_000, false),
                action("after-late", 43_000, 50_000, false),
                action("after-first", 44_000, 45_500, false)), START);

        assertThat(measured.get(0).recoveredAfterMs()).isEqualTo(35_500);
        assertThat(measured.get(0).slowestDuringMs()).isEqualTo(18_000);
    }

    @Test
    void shouldLeaveOutOfTheSlowestAnActionAPersonDecidedWithTheirNextOneTimeCode() {
        List<ChaosRun.FaultRecord> measured = ChaosRun.recoveryTimes(List.of(RESTART), List.of(
                action("by-the-load", 11_000, 20_000, false),
                action("by-a-person", 11_000, 42_700, true),
                action("after", 43_000, 44_000, false)), START);

        assertThat(measured.get(0).slowestDuringMs()).as("the person's wait for a code is not the system's")
                .isEqualTo(9_000);
    }

    @Test
    void shouldTellNothingProposedAfterFromNothingSettled() {
        List<ChaosRun.FaultRecord> none = ChaosRun.recoveryTimes(List.of(RESTART),
                List.of(action("before", 5_000, 6_000, false)), START);
        List<ChaosRun.FaultRecord> stuck = ChaosRun.recoveryTimes(List.of(RESTART),
                List.of(action("after", 43_000, 0, false)), START);

        assertThat(none.get(0).recoveredAfterMs()).isEqualTo(ChaosRun.FaultRecord.NOTHING_PROPOSED_AFTER);
        assertThat(stuck.get(0).recoveredAfterMs()).isEqualTo(ChaosRun.FaultRecord.NOT_RECOVERED);
    }
}
