package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Decision;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.Workload;

/** Row dv's invariants on crafted read-backs: they hold on the right output and fail on each kind of wrong one. */
class DecisionRowTest {

    private static final String REUSED = ReasonCode.APPROVAL_REUSED.name();

    /** 4 actions, replays of actions 0 (resent) and 2 (re-signed), ids beside their actions on 12 partitions. */
    private final DecisionRow.Round round = DecisionRow.round(new Workload("T-test"), "dv", 4, 2, 12);

    private static Decision decode(byte[] bytes) {
        return Topics.DECISIONS.valueSerde().deserializer().deserialize(null, bytes);
    }

    /** What a correct gate leaves: one reservation and APPROVED receipt each, a dead letter per replay. */
    private DecisionRow.Observed correct() {
        List<List<String>> approved = new ArrayList<>();
        round.decisionIds().forEach(id -> approved.add(new ArrayList<>(List.of(id))));
        List<DecisionRow.Letter> letters = new ArrayList<>();
        for (int k = 0; k < round.replays().size(); k++) {
            letters.add(new DecisionRow.Letter(round.replayOf().get(k), REUSED,
                    Digests.sha256Hex(round.replays().values().get(k))));
        }
        return new DecisionRow.Observed(new int[] {1, 1, 1, 1}, approved, letters);
    }

    private Map<String, DecisionRow.Check> checks(DecisionRow.Observed o) {
        return DecisionRow.checks("row dv", round, 4, 4, o).stream()
                .collect(Collectors.toMap(DecisionRow.Check::name, Function.identity()));
    }

    private List<String> failed(DecisionRow.Observed o) {
        return checks(o).values().stream().filter(c -> !c.held()).map(DecisionRow.Check::name).sorted().toList();
    }

    @Test
    void shouldReplayHalfAsSentAndHalfReSignedWithTheSameDecisionId() {
        assertThat(round.replayOf()).containsExactly(0, 2);
        byte[] resent = round.replays().values().get(0);
        byte[] resigned = round.replays().values().get(1);
        assertThat(resent).isEqualTo(round.decisions().values().get(0));
        assertThat(resigned).isNotEqualTo(round.decisions().values().get(2));
        Decision original = decode(round.decisions().values().get(2));
        Decision again = decode(resigned);
        assertThat(again.getDecisionId()).isEqualTo(original.getDecisionId()).isEqualTo(round.decisionIds().get(2));
        assertThat(again.getSignature()).isNotEqualTo(original.getSignature());
        assertThat(round.replays().keys()).containsExactly(round.proposals().keys().get(0),
                round.proposals().keys().get(2));
    }

    @Test
    void shouldCountNoHopForIdsBesideTheirActionsAndTwoForMostOthers() {
        Workload workload = new Workload("T-test");
        DecisionRow.Round beside = DecisionRow.round(workload, "dv", 400, 0, 12);
        DecisionRow.Round plain = DecisionRow.round(workload, "dvh", 400, 0, 1);

        assertThat(DecisionRow.hops(beside, 12)).isZero();
        assertThat(DecisionRow.hops(round, 12)).isZero();
        // 2 * 11/12 = 1.83 expected: a d-<call> id sits on its action's partition for about 1 in 12
        assertThat(DecisionRow.hops(plain, 12)).isBetween(1.6, 2.0);
        assertThat(DecisionRow.hops(plain, 1)).as("one partition: every id is home").isZero();
    }

    @Test
    void shouldPutAnElsewhereIdOffItsActionsPartitionEveryTime() {
        Workload workload = new Workload("T-test");
        Instant at = Instant.now();
        for (int partitions : new int[] {2, 12}) {
            for (int i = 0; i < 200; i++) {
                ActionProposal p = workload.proposal(Workload.callId("dlh", i), Workload.SEND_TOOL, i, at);
                int home = Partitioning.home(ActionKey.format(p.getTaskId(), p.getToolCallId()), partitions);
                Decision off = workload.approveElsewhere(p, at, partitions);
                Decision beside = workload.approve(p, at, partitions);

                assertThat(Partitioning.home(off.getDecisionId(), partitions)).isNotEqualTo(home);
                assertThat(Partitioning.home(beside.getDecisionId(), partitions)).isEqualTo(home);
                assertThat(off.getActionDigest()).isEqualTo(beside.getActionDigest());
            }
        }
    }

    @Test
    void shouldHoldOnTheOutputOfACorrectGate() {
        assertThat(checks(correct()).values()).hasSize(5).allSatisfy(c -> assertThat(c.held()).as(c.name()).isTrue());
        assertThat(checks(correct()).get("row dv: every replayed decision id refused APPROVAL_REUSED, none reserved "
                + "again").detail()).startsWith("2/2 replays refused, 4 reservations for 4 actions");
    }

    @Test
    void shouldFailWhenAnActionIsReservedTwice() {
        DecisionRow.Observed o = correct();
        o.reservations()[1] = 2;

        assertThat(failed(o)).containsExactly("row dv: every decision applied exactly once (one APPROVED receipt "
                        + "carrying its decision id, one reservation per action)",
                "row dv: every replayed decision id refused APPROVAL_REUSED, none reserved again");
    }

    @Test
    void shouldFailWhenAnActionIsApprovedByAnotherDecisionOrTwice() {
        DecisionRow.Observed other = correct();
        other.approvedDecisionIds().set(3, List.of("d-someone-else"));
        DecisionRow.Observed twice = correct();
        twice.approvedDecisionIds().get(3).add(round.decisionIds().get(3));

        assertThat(failed(other)).containsExactly("row dv: every decision applied exactly once (one APPROVED "
                + "receipt carrying its decision id, one reservation per action)");
        assertThat(failed(twice)).containsExactly("row dv: every decision applied exactly once (one APPROVED "
                + "receipt carrying its decision id, one reservation per action)");
    }

    @Test
    void shouldFailWhenAReplayIsAppliedInsteadOfRefused() {
        DecisionRow.Observed o = correct();
        o.deadLetters().remove(1); // no refusal of the re-signed replay of action 2 ...
        o.reservations()[2] = 2; // ... which reserved again
        o.approvedDecisionIds().get(2).add(round.decisionIds().get(2));

        assertThat(failed(o)).containsExactly("row dv: every decision applied exactly once (one APPROVED receipt "
                        + "carrying its decision id, one reservation per action)",
                "row dv: every replayed decision id refused APPROVAL_REUSED, none reserved again");
    }

    @Test
    void shouldFailWhenAReplayIsRefusedForAnotherReasonOrAnOriginalIsRefused() {
        DecisionRow.Observed wrongReason = correct();
        DecisionRow.Letter letter = wrongReason.deadLetters().get(0);
        wrongReason.deadLetters().set(0, new DecisionRow.Letter(letter.action(),
                ReasonCode.APPROVAL_SIGNATURE_INVALID.name(), letter.payloadSha256()));
        assertThat(failed(wrongReason)).containsExactly("row dv: every replayed decision id refused APPROVAL_REUSED, "
                + "none reserved again", "row dv: no decision refused but the replays");

        DecisionRow.Observed refusedOriginal = correct();
        refusedOriginal.deadLetters().add(new DecisionRow.Letter(1, ReasonCode.APPROVAL_DIGEST_MISMATCH.name(),
                Digests.sha256Hex(round.decisions().values().get(1))));
        refusedOriginal.reservations()[1] = 0;
        refusedOriginal.approvedDecisionIds().get(1).clear();
        assertThat(failed(refusedOriginal)).containsExactly("row dv: every decision applied exactly once (one "
                + "APPROVED receipt carrying its decision id, one reservation per action)",
                "row dv: no decision refused but the replays");
    }

    @Test
    void shouldFailWhenTheClockStoppedEarly() {
        List<DecisionRow.Check> checks = DecisionRow.checks("row dv", round, 3, 2, correct());

        assertThat(checks.stream().filter(c -> !c.held()).map(DecisionRow.Check::detail))
                .containsExactly("3/4", "2/4");
    }
}
