package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;

/** Signed decisions: verification, single use, and what APPROVE / REJECT do. */
class DecisionTest {

    @TempDir
    Path stateDir;
    GateDriver gate;

    private GateDriver start(Map<String, String> overrides) {
        gate = GateDriver.start(stateDir, overrides).demoPolicy();
        return gate;
    }

    @AfterEach
    void stop() {
        gate.close();
    }

    private ActionProposal waiting(String call) {
        ActionProposal p = gate.propose(proposal(call));
        gate.drain();
        return p;
    }

    /** A failed decision is a dead letter with its code; the action still waits and a valid approval works. */
    private void assertRefused(ActionProposal p, Decision d, ReasonCode code) {
        gate.decide(d);
        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getReasonCode()).isEqualTo(code.name());
        assertThat(letter.getSourceTopic()).isEqualTo("actiongate.decisions");
        assertThat(gate.receipts()).as("a failed decision changes nothing").isEmpty();
        assertThat(gate.attempts.isEmpty()).isTrue();
        gate.approve(p);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
    }

    @Test
    void shouldReserveTheFirstAttemptWithALeaseOnAValidApproval() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision d = gate.approve(p);
        List<Receipt> receipts = gate.receipts();
        assertThat(receipts).extracting(Receipt::getStatus)
                .as("one receipt per decision: the state it left, not APPROVED on the way")
                .containsExactly(ReceiptStatus.DISPATCHING);
        assertThat(receipts.get(0).getDecisionId()).isEqualTo(d.getDecisionId());
        AttemptReservation r = gate.attempts.readValue();
        assertThat(r.getAttempt()).isEqualTo(1);
        assertThat(r.getActionDigest()).isEqualTo(GateDriver.actionDigest(p));
        assertThat(r.getInputJson()).isEqualTo(GateDriver.INPUT);
        assertThat(r.getIdempotencyKey()).isNotBlank();
        assertThat(r.getLeaseExpiresAt()).isEqualTo(r.getReservedAt().plus(Duration.ofSeconds(60)));
    }

    @Test
    void shouldCarryTheApprovingDecisionAndTheSummaryInTheReservation() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision d = gate.approve(p);
        AttemptReservation r = gate.attempts.readValue();
        assertThat(r.getDecisionId()).isEqualTo(d.getDecisionId()).isNotBlank();
        assertThat(r.getApprovedBy()).isEqualTo(d.getApproverSubject()).isEqualTo("alice@acme.example");
        assertThat(r.getSummary()).isEqualTo(p.getSummary()).isEqualTo("Email ops that the disk is full");
    }

    @Test
    void shouldKeepTheProposersIdempotencyKey() {
        start(Map.of());
        ActionProposal p = gate.propose(proposal("c-1").setIdempotencyKey("biz-42"));
        gate.approve(p);
        assertThat(gate.attempts.readValue().getIdempotencyKey()).isEqualTo("biz-42");
    }

    @Test
    void shouldDenyOnASignedReject() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        gate.decide(gate.sign(gate.decision(p, DecisionType.REJECT)));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DENIED);
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseADecisionSignedWithAnUnknownKeyId() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        assertRefused(p, gate.sign(gate.decision(p, DecisionType.APPROVE).setKeyId("other-key")),
                ReasonCode.APPROVAL_SIGNATURE_INVALID);
    }

    @Test
    void shouldRefuseADecisionWhoseSignatureDoesNotVerify() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision forged = DecisionSigning.sign(gate.decision(p, DecisionType.APPROVE).build(),
                GateDriver.newKeyPair().getPrivate());
        assertRefused(p, forged, ReasonCode.APPROVAL_SIGNATURE_INVALID);
    }

    @Test
    void shouldRefuseATruncatedOrMalleatedSignature() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision signed = gate.sign(gate.decision(p, DecisionType.APPROVE));
        byte[] sig = new byte[64];
        signed.getSignature().duplicate().get(sig);
        // S + L (little-endian, L = 2^252 + 27742317777372353535851937790883648493) verifies under a verifier that
        // reduces S modulo L: a second signature for the same decision
        BigInteger l = BigInteger.TWO.pow(252)
                .add(new BigInteger("27742317777372353535851937790883648493"));
        byte[] s = new byte[33];
        for (int i = 0; i < 32; i++) {
            s[32 - i] = sig[32 + i];
        }
        byte[] sPlusL = new BigInteger(s).add(l).toByteArray();
        byte[] malleated = sig.clone();
        Arrays.fill(malleated, 32, 64, (byte) 0);
        for (int i = 0; i < sPlusL.length && i < 32; i++) {
            malleated[32 + i] = sPlusL[sPlusL.length - 1 - i];
        }
        gate.decide(Decision.newBuilder(signed)
                .setSignature(ByteBuffer.wrap(Arrays.copyOf(sig, 63))).build());
        assertThat(gate.deadLetters.readValue().getReasonCode())
                .isEqualTo(ReasonCode.APPROVAL_SIGNATURE_INVALID.name());
        assertRefused(p, Decision.newBuilder(signed).setSignature(ByteBuffer.wrap(malleated)).build(),
                ReasonCode.APPROVAL_SIGNATURE_INVALID);
    }

    @Test
    void shouldRefuseADecisionAlteredAfterSigning() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision signed = gate.sign(gate.decision(p, DecisionType.APPROVE));
        Decision altered = Decision.newBuilder(signed).setApproverSubject("mallory").build();
        assertRefused(p, altered, ReasonCode.APPROVAL_SIGNATURE_INVALID);
    }

    @Test
    void shouldRefuseADecisionBoundToAnotherDigest() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        assertRefused(p, gate.sign(gate.decision(p, DecisionType.APPROVE).setActionDigest(Digests.inputDigest("{}"))),
                ReasonCode.APPROVAL_DIGEST_MISMATCH);
    }

    @Test
    void shouldRefuseAnApproverOfAnotherOrg() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        assertRefused(p, gate.sign(gate.decision(p, DecisionType.APPROVE).setApproverOrg("evil-corp")),
                ReasonCode.APPROVER_NOT_AUTHORIZED);
    }

    @Test
    void shouldRefuseAnApproverNotListedInGateApprovers() {
        start(Map.of(GateConfig.APPROVERS_CONFIG, "acme:alice@acme.example"));
        ActionProposal p = waiting("c-1");
        assertRefused(p, gate.sign(gate.decision(p, DecisionType.APPROVE).setApproverSubject("bob@acme.example")),
                ReasonCode.APPROVER_NOT_AUTHORIZED);
    }

    @Test
    void shouldRefuseAnExpiredDecision() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision d = gate.sign(gate.decision(p, DecisionType.APPROVE).setExpiresAt(gate.now().plusSeconds(5)));
        gate.advance(Duration.ofSeconds(6));
        gate.drain();
        assertRefused(p, d, ReasonCode.APPROVAL_EXPIRED);
    }

    @Test
    void shouldRefuseAReusedDecisionId() {
        start(Map.of());
        ActionProposal first = waiting("c-1");
        ActionProposal second = waiting("c-2");
        Decision used = gate.approve(first);
        gate.drain();
        Decision reuse = gate.sign(gate.decision(second, DecisionType.APPROVE).setDecisionId(used.getDecisionId()));
        assertRefused(second, reuse, ReasonCode.APPROVAL_REUSED);
    }

    @Test
    void shouldChangeNothingTwiceForARedeliveredApproval() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        Decision d = gate.approve(p);
        gate.drain();
        gate.decide(d);
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.APPROVAL_REUSED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldDeadLetterADecisionForAnUnknownAction() {
        start(Map.of());
        ActionProposal never = proposal("c-404").build();
        gate.decide(gate.sign(gate.decision(never, DecisionType.APPROVE)));
        assertThat(gate.deadLetters.readValue().getReasonCode())
                .isEqualTo(ReasonCode.APPROVAL_DIGEST_MISMATCH.name());
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldDeadLetterADecisionWhoseKeyDiffersFromItsIds() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        gate.decisions.pipeInput("T-1/c-2", gate.sign(gate.decision(p, DecisionType.APPROVE)));
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.KEY_MISMATCH.name());
    }

    @Test
    void shouldRecheckPolicyBeforeTheReservation() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        gate.tool(GateDriver.tool(GateDriver.SEND).setEnabled(false).build());
        gate.approve(p);
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.TOOL_DISABLED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRecheckTheAuthorizationEpochBeforeTheReservation() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        gate.epoch(2);
        gate.approve(p);
        assertThat(gate.lastReceipt().getReasonCode()).isEqualTo(ReasonCode.AUTHORIZATION_EPOCH_CHANGED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldCancelAtTheReservationWhenTheTaskWasCancelled() {
        start(Map.of());
        ActionProposal p = waiting("c-1");
        gate.task(GateDriver.TASK, 1, io.actiongate.avro.LifecycleStatus.CANCELLED);
        gate.approve(p);
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.CANCELLED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.TASK_CANCELLED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }
}
