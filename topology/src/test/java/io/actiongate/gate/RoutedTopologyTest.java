package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Verdict;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.DecisionClaim;
import io.actiongate.gate.internal.Routing;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;

/**
 * The routed topology in the test driver: it routes by two partitions but runs only task 0 and reads every input
 * from partition 0, so a key whose murmur2 home is partition 1 is misrouted and must take exactly one hop through
 * its internal topic, while a key whose home is 0 takes none.
 */
class RoutedTopologyTest {

    private static final int PARTITIONS = 2;

    @TempDir
    Path stateDir;
    GateDriver gate;

    @BeforeEach
    void start() {
        gate = GateDriver.startRouted(stateDir, PARTITIONS).demoPolicy();
    }

    @AfterEach
    void stop() {
        gate.close();
    }

    /** A tool call id whose action key T-1/{id} has murmur2 home {@code partition}. */
    private static String callHomeAt(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String call = prefix + i;
            if (Routing.home(ActionKey.format(GateDriver.TASK, call), PARTITIONS) == partition) {
                return call;
            }
        }
    }

    /** A decision id whose murmur2 home is {@code partition}. */
    private static String decisionIdHomeAt(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String id = prefix + i;
            if (Routing.home(id, PARTITIONS) == partition) {
                return id;
            }
        }
    }

    private List<String> hopKeys(String hop) {
        return gate.hop(hop).readRecordsToList().stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
    }

    private KeyValueStore<String, ActionState> actions() {
        return gate.driver.getKeyValueStore(GateStores.ACTIONS);
    }

    @Test
    void shouldProcessAHomeProposalInPlaceAndAMisroutedOneAfterExactlyOneHop() {
        String home = callHomeAt(0, "home-");
        String away = callHomeAt(1, "away-");
        gate.propose(proposal(home));
        assertThat(hopKeys(GateTopology.PROPOSALS_HOP)).as("a home record costs no hop").isEmpty();
        gate.propose(proposal(away));
        assertThat(hopKeys(GateTopology.PROPOSALS_HOP)).containsExactly(ActionKey.format(GateDriver.TASK, away));

        assertThat(gate.receipts()).extracting(Receipt::getToolCallId, Receipt::getStatus).containsExactly(
                org.assertj.core.groups.Tuple.tuple(home, ReceiptStatus.WAITING_APPROVAL),
                org.assertj.core.groups.Tuple.tuple(away, ReceiptStatus.WAITING_APPROVAL));
        assertThat(actions().get(ActionKey.format(GateDriver.TASK, away)).phase().name()).isEqualTo("WAITING_APPROVAL");
    }

    @Test
    void shouldClaimADecisionByItsIdThenMeetItsActionAndSettleItsOutcomeAfterTheirHops() {
        String away = callHomeAt(1, "away-");
        ActionProposal p = gate.propose(proposal(away));
        gate.drain();
        hopKeys(GateTopology.PROPOSALS_HOP);
        String id = decisionIdHomeAt(1, "d-");
        gate.decide(gate.sign(gate.decision(p, DecisionType.APPROVE).setDecisionId(id)));

        assertThat(hopKeys(GateTopology.DECISION_CLAIMS_HOP)).as("to the task owning the decision id")
                .containsExactly(id);
        assertThat(hopKeys(GateTopology.DECISIONS_CLAIMED_HOP)).as("then to the task owning the action")
                .containsExactly(ActionKey.format(GateDriver.TASK, away));
        assertThat(gate.receipts()).extracting(Receipt::getStatus).containsExactly(ReceiptStatus.DISPATCHING);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        KeyValueStore<String, DecisionClaim> claims = gate.driver.getKeyValueStore(GateStores.DECISION_CLAIMS);
        assertThat(claims.get(id).actionKey()).isEqualTo(ActionKey.format(GateDriver.TASK, away));

        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN));
        assertThat(hopKeys(GateTopology.OUTCOMES_HOP)).containsExactly(ActionKey.format(GateDriver.TASK, away));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.UNKNOWN);
        gate.reconcile(p, 1, Verdict.EFFECT_CONFIRMED);
        assertThat(hopKeys(GateTopology.RECONCILIATIONS_HOP)).containsExactly(ActionKey.format(GateDriver.TASK, away));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
        gate.drain();

        gate.reconcile(p, 1, Verdict.NO_EFFECT); // redelivered in another form: changes nothing
        gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
        assertThat(gate.receipts()).isEmpty();
        assertThat(gate.attempts.isEmpty()).isTrue();
        assertThat(actions().get(ActionKey.format(GateDriver.TASK, away)).phase().name()).isEqualTo("SUCCEEDED");
    }

    @Test
    void shouldNotHopADecisionWhoseIdAndActionAreBothHome() {
        String home = callHomeAt(0, "home-");
        ActionProposal p = gate.propose(proposal(home));
        gate.drain();
        gate.decide(gate.sign(gate.decision(p, DecisionType.APPROVE).setDecisionId(decisionIdHomeAt(0, "d-"))));
        assertThat(hopKeys(GateTopology.DECISION_CLAIMS_HOP)).isEmpty();
        assertThat(hopKeys(GateTopology.DECISIONS_CLAIMED_HOP)).isEmpty();
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
    }

    @Test
    void shouldNotHopADecisionWhoseIdWasChosenBesideItsActionAsTheApprovalServiceChoosesIt() {
        for (int i = 0; i < 6; i++) {
            String home = callHomeAt(0, "chosen-" + i + "-");
            ActionProposal p = gate.propose(proposal(home));
            gate.drain();
            String base = "apr-" + i;
            String id = Partitioning.colocatedDecisionId(k -> base + "#" + k,
                    ActionKey.format(GateDriver.TASK, home), PARTITIONS);
            gate.decide(gate.sign(gate.decision(p, DecisionType.APPROVE).setDecisionId(id)));

            assertThat(hopKeys(GateTopology.DECISION_CLAIMS_HOP)).as(id).isEmpty();
            assertThat(hopKeys(GateTopology.DECISIONS_CLAIMED_HOP)).as(id).isEmpty();
            assertThat(gate.attempts.readValuesToList()).as(id).singleElement()
                    .satisfies(a -> assertThat(a.getDecisionId()).isEqualTo(id));
        }
    }

    @Test
    void shouldRefuseADecisionIdReusedForAnotherActionAfterTheClaimHop() {
        ActionProposal first = gate.propose(proposal(callHomeAt(0, "first-")));
        ActionProposal second = gate.propose(proposal(callHomeAt(1, "second-")));
        gate.drain();
        String id = decisionIdHomeAt(1, "d-");
        gate.decide(gate.sign(gate.decision(first, DecisionType.APPROVE).setDecisionId(id)));
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        gate.drain();

        Decision reuse = gate.decide(gate.sign(gate.decision(second, DecisionType.APPROVE).setDecisionId(id)));
        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.APPROVAL_REUSED.name());
        assertThat(letter.getReason()).contains("another action");
        assertThat(letter.getSourceTopic()).as("named by the producer's record, not the hop topic")
                .isEqualTo("actiongate.decisions");
        assertThat(gate.receipts()).isEmpty();
        assertThat(gate.attempts.isEmpty()).isTrue();
        assertThat(actions().get(GateDriver.key(second)).phase().name()).isEqualTo("WAITING_APPROVAL");

        gate.decide(reuse); // the refused decision again: still refused, still nothing
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.APPROVAL_REUSED.name());
        gate.approve(second); // a fresh id approves
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
    }

    @Test
    void shouldLetAForgedDecisionClaimNothing() {
        ActionProposal p = gate.propose(proposal(callHomeAt(1, "away-")));
        gate.drain();
        String id = decisionIdHomeAt(0, "d-");
        Decision signed = gate.sign(gate.decision(p, DecisionType.APPROVE).setDecisionId(id));
        Decision forged = Decision.newBuilder(signed).setApproverSubject("mallory@acme.example").build();
        gate.decide(forged);
        assertThat(gate.deadLetters.readValue().getReasonCode())
                .isEqualTo(ReasonCode.APPROVAL_SIGNATURE_INVALID.name());
        assertThat(gate.driver.<String, DecisionClaim>getKeyValueStore(GateStores.DECISION_CLAIMS).get(id)).isNull();
        gate.decide(signed);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
    }

    @Test
    void shouldNameAHoppedRecordsDeadLetterByItsInputPositionNotByTheHopTopic() {
        String away = ActionKey.format(GateDriver.TASK, callHomeAt(1, "away-"));
        gate.rawProposals.pipeInput(new TestRecord<>(away.getBytes(StandardCharsets.UTF_8),
                "garbage".getBytes(StandardCharsets.UTF_8)));
        assertThat(hopKeys(GateTopology.PROPOSALS_HOP)).containsExactly(away);
        DeadLetter undecodable = gate.deadLetters.readValue();
        assertThat(undecodable.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(undecodable.getSourceTopic()).isEqualTo("actiongate.proposals");
        assertThat(undecodable.getPartition()).isZero();
        assertThat(undecodable.getOffset()).isZero();

        ActionProposal never = proposal(callHomeAt(1, "never-")).build();
        gate.report(gate.outcome(never, 1, OutcomeStatus.SUCCEEDED));
        DeadLetter unheld = gate.deadLetters.readValue();
        assertThat(unheld.getReasonCode()).isEqualTo(ReasonCode.KEY_MISMATCH.name());
        assertThat(unheld.getSourceTopic()).isEqualTo("actiongate.outcomes");
        assertThat(unheld.getOffset()).isZero();
    }

    @Test
    void shouldIgnoreOriginHeadersAProducerWrote() {
        org.apache.kafka.common.header.internals.RecordHeaders forged =
                new org.apache.kafka.common.header.internals.RecordHeaders();
        forged.add("actiongate.origin.topic", "elsewhere".getBytes(StandardCharsets.UTF_8));
        forged.add("actiongate.origin.partition", "7".getBytes(StandardCharsets.UTF_8));
        forged.add("actiongate.origin.offset", "99".getBytes(StandardCharsets.UTF_8));
        String away = ActionKey.format(GateDriver.TASK, callHomeAt(1, "away-"));
        gate.rawProposals.pipeInput(new TestRecord<>(away.getBytes(StandardCharsets.UTF_8),
                "garbage".getBytes(StandardCharsets.UTF_8), forged, GateDriver.START));
        gate.rawProposals.pipeInput(new TestRecord<>("not a key".getBytes(StandardCharsets.UTF_8),
                "garbage".getBytes(StandardCharsets.UTF_8), forged, GateDriver.START));
        List<DeadLetter> letters = gate.deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getSourceTopic).containsOnly("actiongate.proposals");
        assertThat(letters).extracting(DeadLetter::getOffset).containsExactly(0L, 1L);
    }

    @Test
    void shouldRefuseRecordsThatCannotMeetAnActionWhereTheyWereReadWithoutAHop() {
        gate.rawProposals.pipeInput(new TestRecord<>("no action key".getBytes(StandardCharsets.UTF_8),
                "garbage".getBytes(StandardCharsets.UTF_8)));
        gate.rawDecisions.pipeInput(new TestRecord<>(ActionKey.format(GateDriver.TASK, callHomeAt(1, "x-"))
                .getBytes(StandardCharsets.UTF_8), "garbage".getBytes(StandardCharsets.UTF_8)));
        List<DeadLetter> letters = gate.deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getSourceTopic)
                .containsExactly("actiongate.proposals", "actiongate.decisions");
        assertThat(letters).extracting(DeadLetter::getReasonCode).containsOnly(ReasonCode.SCHEMA_INVALID.name());
        assertThat(hopKeys(GateTopology.PROPOSALS_HOP)).isEmpty();
        assertThat(hopKeys(GateTopology.DECISION_CLAIMS_HOP)).isEmpty();
    }
}
