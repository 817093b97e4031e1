package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.ORG;
import static io.actiongate.gate.GateDriver.SEND;
import static io.actiongate.gate.GateDriver.proposal;
import static io.actiongate.gate.GateDriver.tool;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.internal.ProposalProcessor;

/**
 * An action's identity includes its tenant. No org or principal can occupy, answer for or read another's
 * action: the whole frozen action is the identity, and only the org owning a task may hold a key under it.
 */
class TenantIdentityTest {

    static final String OTHER_ORG = "globex";

    @TempDir
    Path stateDir;
    GateDriver gate;

    GateDriver start(Map<String, String> config) {
        gate = GateDriver.start(stateDir, config).demoPolicy();
        gate.tenant(OTHER_ORG);
        return gate;
    }

    GateDriver start() {
        return start(Map.of());
    }

    @AfterEach
    void stop() {
        if (gate != null) {
            gate.close();
        }
    }

    // ---- identity = the whole frozen action ---------------------------------------------------------------

    @Test
    void shouldConflictWhenAnotherOrgOffersTheSameKeyAndInput() {
        start();
        ActionProposal original = gate.propose(proposal("c-1"));
        Receipt held = gate.lastReceipt();
        gate.drain();

        ActionProposal other = gate.propose(proposal("c-1").setOrgId(OTHER_ORG));

        assertConflictLeavingTheOriginalUntouched(original, other, held);
    }

    @Test
    void shouldConflictWhenAnotherPrincipalOffersTheSameKeyAndInput() {
        start();
        ActionProposal original = gate.propose(proposal("c-1"));
        Receipt held = gate.lastReceipt();
        gate.drain();

        ActionProposal other = gate.propose(proposal("c-1").setPrincipalId("user-2"));

        assertConflictLeavingTheOriginalUntouched(original, other, held);
    }

    @Test
    void shouldConflictWhenAnotherProfileOffersTheSameKeyAndInput() {
        start();
        ActionProposal original = gate.propose(proposal("c-1"));
        gate.drain();
        gate.propose(proposal("c-1").setProfileId("admin"));
        IdentityConflict c = gate.conflicts.readValue();
        assertThat(c.getExistingDigest()).isEqualTo(GateDriver.actionDigest(original));
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldConflictWhenTheSummaryOrEpochDiffersUnderTheSameInputDigest() {
        start();
        gate.propose(proposal("c-1"));
        gate.drain();
        gate.propose(proposal("c-1").setSummary("Email ops something else"));
        gate.propose(proposal("c-1").setTaskVersion(2));
        assertThat(gate.conflicts.readValuesToList()).hasSize(2);
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldConflictWhenTheClaimedDigestIsTheHeldOneButTheInputIsNot() {
        start();
        ActionProposal original = gate.propose(proposal("c-1"));
        gate.drain();
        // the held digest, claimed for another body: identity is what the input is, not what the record says
        gate.propose(proposal("c-1").setInputJson("{\"to\":\"attacker@example.com\",\"body\":\"disk is full\"}")
                .setInputDigest(original.getInputDigest()));
        assertThat(gate.conflicts.readValuesToList()).hasSize(1);
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldStillRepublishTheReceiptForAnExactRedelivery() {
        start();
        gate.propose(proposal("c-1"));
        Receipt first = gate.lastReceipt();
        gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt()).isEqualTo(first);
        assertThat(gate.conflicts.isEmpty()).isTrue();
    }

    private void assertConflictLeavingTheOriginalUntouched(ActionProposal original, ActionProposal other,
                                                           Receipt held) {
        IdentityConflict c = gate.conflicts.readValue();
        assertThat(c.getExistingDigest()).isEqualTo(GateDriver.actionDigest(original));
        assertThat(c.getOfferedDigest()).isEqualTo(GateDriver.actionDigest(other))
                .isNotEqualTo(c.getExistingDigest());
        assertThat(gate.receipts()).as("the held action's receipt is never answered to another offer").isEmpty();
        assertThat(gate.attempts.isEmpty()).isTrue();
        // the original is untouched: still waiting, its own approval still works, with its own org
        gate.approve(original);
        List<Receipt> receipts = gate.receipts();
        assertThat(receipts).extracting(Receipt::getStatus).containsExactly(ReceiptStatus.DISPATCHING);
        assertThat(receipts).allSatisfy(r -> {
            assertThat(r.getOrgId()).isEqualTo(ORG);
            assertThat(r.getActionDigest()).isEqualTo(held.getActionDigest());
        });
        AttemptReservation r = gate.attempts.readValue();
        assertThat(r.getOrgId()).isEqualTo(ORG);
        assertThat(r.getActionDigest()).isEqualTo(GateDriver.actionDigest(original));
    }

    // ---- tasks belong to an org -----------------------------------------------------------------------------

    @Test
    void shouldRefuseANonOwnerWithoutHoldingTheKeySoTheOwnerIsAdmitted() {
        start();
        // org B, granted in its own org, proposes first under a task of org A
        gate.propose(proposal("c-1").setOrgId(OTHER_ORG));

        assertThat(gate.receipts()).as("no receipt under a key of another org's task").isEmpty();
        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.TASK_NOT_OWNED.name());
        assertThat(gate.heldAction("T-1/c-1")).as("the refusal does not occupy the key").isNull();
        assertThat(gate.gateMetric(ProposalProcessor.PROPOSALS_NOT_OWNED)).isEqualTo(1.0);

        // the owner's own proposal then gets its own WAITING_APPROVAL, with its own digest
        ActionProposal own = gate.propose(proposal("c-1"));
        Receipt receipt = gate.lastReceipt();
        assertThat(receipt.getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        assertThat(receipt.getOrgId()).isEqualTo(ORG);
        assertThat(receipt.getActionDigest()).isEqualTo(GateDriver.actionDigest(own));
        assertThat(gate.conflicts.isEmpty()).isTrue();
    }

    @Test
    void shouldNeverPublishAReceiptOfAnotherOrgUnderTheOwnersKey() {
        start();
        // every way org B could reach a receipt under T-1 (owned by acme): a clean proposal, an invalid one, one
        // whose value names other ids than its key, and a redelivery of each
        for (int round = 0; round < 2; round++) {
            gate.propose(proposal("c-1").setOrgId(OTHER_ORG));
            gate.propose(proposal("c-2").setOrgId(OTHER_ORG).setSummary(""));
            ActionProposal mismatched = proposal("c-9").setOrgId(OTHER_ORG).build();
            gate.proposals.pipeInput("T-1/c-3", mismatched);
        }
        assertThat(gate.receipts()).isEmpty();
        assertThat(gate.deadLetters.readValuesToList()).extracting(DeadLetter::getReasonCode)
                .containsExactly("TASK_NOT_OWNED", "TASK_NOT_OWNED", "KEY_MISMATCH",
                        "TASK_NOT_OWNED", "TASK_NOT_OWNED", "KEY_MISMATCH");
        // the owner's key mismatch still gets its REJECTED receipt (its own task)
        gate.proposals.pipeInput("T-1/c-3", proposal("c-9").build());
        assertThat(gate.lastReceipt().getReasonCode()).isEqualTo(ReasonCode.KEY_MISMATCH.name());
    }

    @Test
    void shouldNotRepublishAHeldReceiptOfAnOrgThatNoLongerOwnsTheTask() {
        start();
        // held before the task named its owner (here: while it named org B), then the task is org A's
        gate.task(GateDriver.TASK, 1, LifecycleStatus.ACTIVE, OTHER_ORG);
        gate.propose(proposal("c-1").setOrgId(OTHER_ORG));
        assertThat(gate.lastReceipt().getOrgId()).isEqualTo(OTHER_ORG);
        gate.task(GateDriver.TASK, 1, LifecycleStatus.ACTIVE, ORG);

        gate.propose(proposal("c-1").setOrgId(OTHER_ORG));
        assertThat(gate.receipts()).as("no receipt of org B under a key of org A's task").isEmpty();
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.TASK_NOT_OWNED.name());
    }

    @Test
    void shouldRefuseEveryProposalUnderATaskWithoutOwnerByDefault() {
        start();
        gate.task(GateDriver.TASK, 1, LifecycleStatus.ACTIVE, null); // written before schema v2
        gate.propose(proposal("c-1"));
        assertThat(gate.receipts()).isEmpty();
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.TASK_NOT_OWNED.name());
        assertThat(gate.heldAction("T-1/c-1")).isNull();
    }

    @Test
    void shouldGiveATaskWithoutOwnerToTheConfiguredSingleTenantOrg() {
        start(Map.of(GateConfig.TASK_DEFAULT_ORG_CONFIG, ORG));
        gate.task(GateDriver.TASK, 1, LifecycleStatus.ACTIVE, null);
        gate.propose(proposal("c-1").setOrgId(OTHER_ORG));
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.TASK_NOT_OWNED.name());
        gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldLetTheOwnersOwnRefusalHoldItsKey() {
        start();
        // a refusal of the owner's own proposal is the owner's action: it holds the key for the dedupe window
        ActionProposal p = gate.propose(proposal("c-1").setTaskVersion(9));
        Receipt rejected = gate.lastReceipt();
        assertThat(rejected.getReasonCode()).isEqualTo(ReasonCode.TASK_VERSION_CHANGED.name());
        assertThat(rejected.getActionDigest()).as("a refused action names its frozen action")
                .isEqualTo(GateDriver.actionDigest(p));
        assertThat(gate.heldAction("T-1/c-1")).isNotNull();
        gate.propose(proposal("c-1").setTaskVersion(9));
        assertThat(gate.lastReceipt()).isEqualTo(rejected);
    }

    @Test
    void shouldRejectAnOriginRequestNamingAnotherOrgsConversation() {
        start();
        gate.tool(tool(SEND).setApproval(ApprovalMode.ORIGIN_REQUEST).build());
        gate.origin(LifecycleStatus.ACTIVE, GateDriver.TURN, OTHER_ORG);
        gate.propose(proposal("c-1").setOrigin(GateDriver.origin(GateDriver.TURN)));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.NO_ACTIVE_HUMAN_SOURCE.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseTheReservationWhenTheTaskChangedOwnerAfterApproval() {
        start();
        ActionProposal p = gate.propose(proposal("c-1"));
        gate.drain();
        gate.task(GateDriver.TASK, 1, LifecycleStatus.ACTIVE, OTHER_ORG);
        gate.approve(p);
        assertThat(gate.attempts.isEmpty()).isTrue();
        assertThat(gate.lastReceipt().getReasonCode()).isEqualTo(ReasonCode.TASK_NOT_OWNED.name());
    }
}
