package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.avro.Verdict;
import io.actiongate.contract.ReasonCode;

/** Outcomes matched by attempt, retries on a persisted timer, unknown outcomes and their settlement. */
class OutcomeTest {

    @TempDir
    Path stateDir;
    GateDriver gate;

    private ActionProposal dispatching(Map<String, String> overrides) {
        gate = GateDriver.start(stateDir, overrides).demoPolicy();
        ActionProposal p = gate.propose(proposal("c-1"));
        gate.approve(p);
        gate.drain();
        return p;
    }

    @AfterEach
    void stop() {
        gate.close();
    }

    @Test
    void shouldSucceedOnASucceededOutcome() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
        assertThat(r.getResolvedBy()).isEqualTo(ResolvedBy.GATE);
        assertThat(r.getProviderReceiptId()).isEqualTo("prov-1");
        assertThat(r.getAttempts()).extracting(AttemptSummary::getStatus).containsExactly(OutcomeStatus.SUCCEEDED);
    }

    @Test
    void shouldFailWithProviderRejectedOnAFailedOutcome() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.FAILED).setHttpStatus(422).setErrorCode("PROVIDER_REJECTED"));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.FAILED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.PROVIDER_REJECTED.name());
        assertThat(r.getAttempts().get(0).getHttpStatus()).isEqualTo(422);
    }

    @Test
    void shouldFailWithRateLimitedWhenTheExecutorReportsARetryAtBeyondItsCap() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.FAILED).setHttpStatus(429).setErrorCode("RATE_LIMITED"));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.FAILED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.RATE_LIMITED.name());
    }

    @Test
    void shouldChangeNothingForDuplicateOrStaleOutcomes() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 2, OutcomeStatus.SUCCEEDED));
        assertThat(gate.receipts()).as("attempt 2 was never reserved").isEmpty();
        gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
        assertThat(gate.receipts()).hasSize(1);
        gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
        gate.report(gate.outcome(p, 1, OutcomeStatus.FAILED));
        assertThat(gate.receipts()).as("duplicates and late outcomes change nothing twice").isEmpty();
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldReserveTheNextAttemptAtRetryAtWithTheSameIdempotencyKey() {
        ActionProposal p = dispatching(Map.of());
        gate.propose(proposal("c-1")); // redelivery: republishes, does not reserve
        gate.drain();
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE).setHttpStatus(429).setErrorCode("RATE_LIMITED")
                .setRetryAt(gate.now().plusSeconds(30)));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.APPROVED);
        gate.advance(Duration.ofSeconds(20));
        assertThat(gate.attempts.isEmpty()).as("not before retry_at").isTrue();
        gate.advance(Duration.ofSeconds(11));
        AttemptReservation second = gate.attempts.readValue();
        assertThat(second.getAttempt()).isEqualTo(2);
        assertThat(second.getDecisionId()).as("every attempt carries the approval").isNotBlank();
        assertThat(second.getApprovedBy()).isEqualTo("alice@acme.example");
        assertThat(second.getSummary()).isEqualTo(p.getSummary());
        assertThat(second.getIdempotencyKey()).isEqualTo(io.actiongate.gate.internal.StateRecords
                .derivedIdempotencyKey("T-1/c-1"));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
        assertThat(r.getAttempts()).extracting(AttemptSummary::getStatus).containsExactly(OutcomeStatus.RETRYABLE);
    }

    @Test
    void shouldRetryANotDispatchedAttemptWhoseLeaseExpired() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED).setErrorCode("LEASE_EXPIRED"));
        gate.advance(Duration.ofSeconds(2));
        assertThat(gate.attempts.readValue().getAttempt()).isEqualTo(2);
    }

    @Test
    void shouldFailRateLimitedWhenRetryAtIsBeyondTheCap() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE).setHttpStatus(429)
                .setRetryAt(gate.now().plus(Duration.ofMinutes(11))));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.FAILED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.RATE_LIMITED.name());
        gate.advance(Duration.ofMinutes(12));
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldFailRetriesExhaustedAfterTheThirdAttempt() {
        ActionProposal p = dispatching(Map.of());
        for (int attempt = 1; attempt <= 2; attempt++) {
            gate.report(gate.outcome(p, attempt, OutcomeStatus.RETRYABLE));
            gate.advance(Duration.ofSeconds(2));
            assertThat(gate.attempts.readValue().getAttempt()).isEqualTo(attempt + 1);
        }
        gate.drain();
        gate.report(gate.outcome(p, 3, OutcomeStatus.RETRYABLE));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.FAILED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.RETRIES_EXHAUSTED.name());
        assertThat(r.getAttempts()).hasSize(3);
        gate.advance(Duration.ofMinutes(5));
        assertThat(gate.attempts.isEmpty()).as("never a fourth attempt").isTrue();
    }

    @Test
    void shouldHonourAConfiguredMaximumOfOneAttempt() {
        ActionProposal p = dispatching(Map.of(GateConfig.RETRY_MAX_ATTEMPTS_CONFIG, "1"));
        gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED));
        assertThat(gate.lastReceipt().getReasonCode()).isEqualTo(ReasonCode.RETRIES_EXHAUSTED.name());
    }

    @Test
    void shouldExpireWhenTheApprovalExpiredBeforeTheRetryReservation() {
        gate = GateDriver.start(stateDir).demoPolicy();
        ActionProposal p = gate.propose(proposal("c-1"));
        gate.decide(gate.sign(gate.decision(p, DecisionType.APPROVE).setExpiresAt(gate.now().plusSeconds(10))));
        gate.drain();
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE).setRetryAt(gate.now().plusSeconds(30)));
        gate.advance(Duration.ofSeconds(31));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.EXPIRED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.APPROVAL_EXPIRED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRecheckPolicyBeforeARetry() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE));
        gate.integration(false);
        gate.advance(Duration.ofSeconds(2));
        assertThat(gate.lastReceipt().getReasonCode()).isEqualTo(ReasonCode.INTEGRATION_DISABLED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldCancelAWaitingRetryWhenTheOriginIsCancelled() {
        gate = GateDriver.start(stateDir).demoPolicy();
        gate.origin(LifecycleStatus.ACTIVE, GateDriver.TURN);
        ActionProposal p = gate.propose(proposal("c-1").setOrigin(GateDriver.origin(GateDriver.TURN)));
        gate.approve(p);
        gate.drain();
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE).setRetryAt(gate.now().plus(Duration.ofMinutes(5))));
        gate.origin(LifecycleStatus.CANCELLED, null);
        gate.advance(Duration.ofSeconds(11)); // one cancellation sweep
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.CANCELLED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.ORIGIN_CANCELLED.name());
        gate.advance(Duration.ofMinutes(6));
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    // ---- unknown outcomes -----------------------------------------------------------------------------------

    @Test
    void shouldPublishUnknownAndNeverRedispatch() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN).setHttpStatus(503).setErrorCode("UPSTREAM_5XX"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.UNKNOWN);
        UnknownOutcome u = gate.unknowns.readValue();
        assertThat(u.getAttempt()).isEqualTo(1);
        assertThat(u.getInputJson()).isEqualTo(GateDriver.INPUT);
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE));
        gate.propose(proposal("c-1"));
        gate.advance(Duration.ofHours(1));
        assertThat(gate.attempts.isEmpty()).as("nothing re-dispatches after UNKNOWN").isTrue();
    }

    @Test
    void shouldTurnAnAttemptWithoutOutcomeAfterLeaseAndDispatchTimeoutIntoUnknown() {
        ActionProposal p = dispatching(Map.of());
        gate.advance(Duration.ofSeconds(119));
        assertThat(gate.unknowns.isEmpty()).as("not before lease + dispatch timeout").isTrue();
        gate.advance(Duration.ofSeconds(2));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.UNKNOWN);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.LEASE_EXPIRED.name());
        assertThat(gate.unknowns.readValue().getReason()).startsWith(ReasonCode.LEASE_EXPIRED.name());
        gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
        assertThat(gate.receipts()).as("a late outcome changes nothing").isEmpty();
        gate.advance(Duration.ofHours(1));
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldSettleUnknownAsSucceededWhenTheReconcilerConfirmsTheEffect() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN).setHttpStatus(504).setErrorCode("TIMEOUT"));
        gate.drain();
        gate.reconcile(p, 1, Verdict.EFFECT_CONFIRMED);
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
        assertThat(r.getResolvedBy()).isEqualTo(ResolvedBy.RECONCILER);
        assertThat(r.getProviderReceiptId()).isEqualTo("prov-9");
        assertThat(r.getAttempts().get(0).getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
        assertThat(r.getAttempts().get(0).getErrorCode()).isEqualTo("TIMEOUT");
        gate.reconcile(p, 1, Verdict.NO_EFFECT);
        assertThat(gate.receipts()).as("a duplicate reconciliation changes nothing").isEmpty();
    }

    @Test
    void shouldSettleUnknownAsNotAppliedWhenTheReconcilerFindsNoEffect() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN));
        gate.drain();
        gate.reconcile(p, 1, Verdict.NO_EFFECT);
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.NOT_APPLIED);
        assertThat(r.getResolvedBy()).isEqualTo(ResolvedBy.RECONCILER);
        gate.propose(proposal("c-1"));
        assertThat(gate.attempts.isEmpty()).as("a new effect needs a fresh proposal").isTrue();
    }

    // ---- a read that provably did not happen may run again ----------------------------------------------------------

    private ActionProposal dispatchingRead() {
        gate = GateDriver.start(stateDir).demoPolicy();
        ActionProposal p = gate.propose(GateDriver.lookup("c-1").setIdempotencyKey("read-key-1"));
        assertThat(gate.attempts.readValue().getAttempt()).isEqualTo(1);
        gate.drain();
        return p;
    }

    @Test
    void shouldGiveATrustedReadProvenNoEffectItsNextAttemptWithTheSameKey() {
        ActionProposal p = dispatchingRead();
        gate.advance(Duration.ofSeconds(121)); // crash between commit and dispatch: lease + dispatch timeout pass
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.UNKNOWN);
        gate.reconcile(p, 1, Verdict.NO_EFFECT);
        Receipt waiting = gate.lastReceipt();
        assertThat(waiting.getStatus()).as("not NOT_APPLIED: the read may run again").isEqualTo(ReceiptStatus.APPROVED);
        assertThat(waiting.getResolvedBy()).isNull();
        gate.advance(Duration.ofSeconds(2));
        AttemptReservation second = gate.attempts.readValue();
        assertThat(second.getAttempt()).isEqualTo(2);
        assertThat(second.getIdempotencyKey()).isEqualTo("read-key-1");
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
        assertThat(r.getAttempts()).as("the history stays").extracting(AttemptSummary::getStatus)
                .containsExactly(OutcomeStatus.UNKNOWN);
        gate.reconcile(p, 1, Verdict.NO_EFFECT);
        assertThat(gate.receipts()).as("a redelivered reconciliation changes nothing").isEmpty();
        gate.report(gate.outcome(p, 2, OutcomeStatus.SUCCEEDED));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
    }

    @Test
    void shouldRetryATrustedReadThatWasNotDispatched() {
        ActionProposal p = dispatchingRead();
        gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED).setErrorCode("LEASE_EXPIRED"));
        gate.advance(Duration.ofSeconds(2));
        AttemptReservation second = gate.attempts.readValue();
        assertThat(second.getAttempt()).isEqualTo(2);
        assertThat(second.getIdempotencyKey()).isEqualTo("read-key-1");
    }

    @Test
    void shouldSettleAReadNotAppliedOnceItsAttemptsAreUsedUp() {
        ActionProposal p = dispatchingRead();
        for (int attempt = 1; attempt <= 3; attempt++) {
            gate.report(gate.outcome(p, attempt, OutcomeStatus.UNKNOWN));
            gate.reconcile(p, attempt, Verdict.NO_EFFECT);
            gate.advance(Duration.ofSeconds(2));
        }
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.NOT_APPLIED);
        assertThat(r.getAttempts()).hasSize(3);
        gate.attempts.readValuesToList();
        gate.advance(Duration.ofMinutes(5));
        assertThat(gate.attempts.isEmpty()).as("never a fourth attempt").isTrue();
    }

    @Test
    void shouldNotRetryAReadThatIsNoLongerATrustedRead() {
        ActionProposal p = dispatchingRead();
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN));
        gate.classifiers.set(GateDriver.PROVIDER, GateDriver.LOOKUP,
                io.actiongate.connector.spi.Classification.effect("moved to operations"));
        gate.reconcile(p, 1, Verdict.NO_EFFECT);
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.NOT_APPLIED);
        gate.advance(Duration.ofMinutes(5));
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldKeepUnknownWhenStillUnknownAndLetTheOwnerSettleItKeepingTheHistory() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE).setHttpStatus(429).setErrorCode("RATE_LIMITED"));
        gate.advance(Duration.ofSeconds(2));
        gate.report(gate.outcome(p, 2, OutcomeStatus.UNKNOWN).setHttpStatus(502).setErrorCode("UPSTREAM_5XX"));
        gate.drain();
        gate.reconcile(p, 2, Verdict.STILL_UNKNOWN);
        assertThat(gate.receipts()).isEmpty();
        gate.decide(gate.sign(gate.decision(p, DecisionType.RESOLVE_EFFECT_CONFIRMED)));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
        assertThat(r.getResolvedBy()).isEqualTo(ResolvedBy.OWNER);
        List<AttemptSummary> history = r.getAttempts();
        assertThat(history).extracting(AttemptSummary::getStatus)
                .containsExactly(OutcomeStatus.RETRYABLE, OutcomeStatus.UNKNOWN);
        assertThat(history).extracting(AttemptSummary::getErrorCode).containsExactly("RATE_LIMITED", "UPSTREAM_5XX");
        assertThat(history).extracting(AttemptSummary::getHttpStatus).containsExactly(429, 502);
    }

    @Test
    void shouldLetTheOwnerResolveNoEffect() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN));
        gate.drain();
        gate.decide(gate.sign(gate.decision(p, DecisionType.RESOLVE_NO_EFFECT)));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.NOT_APPLIED);
        assertThat(r.getResolvedBy()).isEqualTo(ResolvedBy.OWNER);
    }

    @Test
    void shouldRefuseAnOwnerResolutionOfAnActionThatIsNotUnknown() {
        ActionProposal p = dispatching(Map.of());
        gate.decide(gate.sign(gate.decision(p, DecisionType.RESOLVE_EFFECT_CONFIRMED)));
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.APPROVAL_REUSED.name());
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldRefuseAnUnsignedOwnerResolution() {
        ActionProposal p = dispatching(Map.of());
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN));
        gate.drain();
        gate.decide(gate.decision(p, DecisionType.RESOLVE_EFFECT_CONFIRMED).build());
        assertThat(gate.deadLetters.readValue().getReasonCode())
                .isEqualTo(ReasonCode.APPROVAL_SIGNATURE_INVALID.name());
        assertThat(gate.receipts()).isEmpty();
    }
}
