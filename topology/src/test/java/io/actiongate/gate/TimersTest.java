package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;

/** Approval deadline, cancellation, dedupe window and timers that survive a restart. */
class TimersTest {

    @TempDir
    Path stateDir;
    @TempDir
    Path snapshot;

    @Test
    void shouldExpireAnActionWaitingPastTheApprovalDeadline() {
        try (GateDriver gate = GateDriver.start(stateDir, Map.of(GateConfig.APPROVAL_TIMEOUT_CONFIG, "10m"))) {
            gate.demoPolicy();
            ActionProposal p = gate.propose(proposal("c-1"));
            gate.drain();
            gate.advance(Duration.ofMinutes(9));
            assertThat(gate.receipts()).isEmpty();
            gate.advance(Duration.ofMinutes(1).plusSeconds(1));
            Receipt r = gate.lastReceipt();
            assertThat(r.getStatus()).isEqualTo(ReceiptStatus.EXPIRED);
            assertThat(r.getReasonCode()).isEqualTo(ReasonCode.APPROVAL_EXPIRED.name());
            gate.approve(p);
            assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.APPROVAL_EXPIRED.name());
            assertThat(gate.attempts.isEmpty()).isTrue();
        }
    }

    @Test
    void shouldCancelAWaitingActionWithinOneSweepOfTheTaskBeingCancelled() {
        try (GateDriver gate = GateDriver.start(stateDir).demoPolicy()) {
            ActionProposal p = gate.propose(proposal("c-1"));
            gate.drain();
            gate.task(GateDriver.TASK, 1, LifecycleStatus.CANCELLED);
            gate.advance(Duration.ofSeconds(11));
            Receipt r = gate.lastReceipt();
            assertThat(r.getStatus()).isEqualTo(ReceiptStatus.CANCELLED);
            assertThat(r.getReasonCode()).isEqualTo(ReasonCode.TASK_CANCELLED.name());
            gate.approve(p);
            assertThat(gate.attempts.isEmpty()).isTrue();
        }
    }

    @Test
    void shouldCancelAWaitingActionWhenItsOriginIsArchived() {
        try (GateDriver gate = GateDriver.start(stateDir).demoPolicy()) {
            gate.origin(LifecycleStatus.ACTIVE, GateDriver.TURN);
            gate.propose(proposal("c-1").setOrigin(GateDriver.origin(GateDriver.TURN)));
            gate.propose(proposal("c-2"));
            gate.drain();
            gate.origin(LifecycleStatus.ARCHIVED, null);
            gate.advance(Duration.ofSeconds(11));
            java.util.List<Receipt> receipts = gate.receipts();
            assertThat(receipts).hasSize(1);
            assertThat(receipts.get(0).getToolCallId()).isEqualTo("c-1");
            assertThat(receipts.get(0).getReasonCode()).isEqualTo(ReasonCode.ORIGIN_CANCELLED.name());
        }
    }

    @Test
    void shouldSweepPendingActionsInBoundedBatchesAndResumeWhereTheLastSweepStopped() {
        try (GateDriver gate = GateDriver.start(stateDir, Map.of(GateConfig.CANCEL_SWEEP_BATCH_MAX_CONFIG, "1"))) {
            gate.demoPolicy();
            gate.propose(proposal("c-1"));
            gate.propose(proposal("c-2"));
            gate.drain();
            gate.task(GateDriver.TASK, 1, LifecycleStatus.CANCELLED);
            gate.advance(Duration.ofSeconds(10));
            assertThat(gate.receipts()).extracting(Receipt::getToolCallId).containsExactly("c-1");
            gate.advance(Duration.ofSeconds(10));
            assertThat(gate.receipts()).extracting(Receipt::getToolCallId).containsExactly("c-2");
            gate.advance(Duration.ofSeconds(10));
            assertThat(gate.receipts()).isEmpty();
        }
    }

    @Test
    void shouldLetDispatchedWorkFinishAfterCancellation() {
        try (GateDriver gate = GateDriver.start(stateDir).demoPolicy()) {
            ActionProposal p = gate.propose(proposal("c-1"));
            gate.approve(p);
            gate.drain();
            gate.task(GateDriver.TASK, 1, LifecycleStatus.CANCELLED);
            gate.advance(Duration.ofSeconds(11));
            assertThat(gate.receipts()).as("a dispatched action is not cancelled").isEmpty();
            gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
            assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.SUCCEEDED);
        }
    }

    @Test
    void shouldServeRedeliveriesFromTheStoreInsideTheDedupeWindowAndTreatThemAsNewAfterIt() {
        try (GateDriver gate = GateDriver.start(stateDir, Map.of(GateConfig.DEDUPE_WINDOW_CONFIG, "1h"))) {
            gate.demoPolicy();
            ActionProposal p = gate.propose(proposal("c-1"));
            gate.decide(gate.sign(gate.decision(p, DecisionType.REJECT)));
            gate.drain();
            gate.advance(Duration.ofMinutes(59));
            gate.propose(proposal("c-1"));
            assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DENIED);
            gate.advance(Duration.ofMinutes(2));
            gate.propose(proposal("c-1"));
            assertThat(gate.lastReceipt().getStatus()).as("a fresh proposal needs a new approval")
                    .isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        }
    }

    @Test
    void shouldKeepAPendingRetryAcrossARestartWithTheSameStateDirectory() throws IOException {
        GateDriver gate = GateDriver.start(stateDir).demoPolicy();
        ActionProposal p = gate.propose(proposal("c-1"));
        gate.approve(p);
        gate.drain();
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE).setRetryAt(gate.now().plusSeconds(30)));
        gate.closeStores(); // a stopping instance writes its stores to disk
        copy(stateDir, snapshot); // the test driver deletes its state directory on close
        try {
            gate.close();
        } catch (org.apache.kafka.streams.errors.InvalidStateStoreException expected) {
            // its stores are already closed
        }
        copy(snapshot, stateDir);
        try (GateDriver restarted = gate.restart(Map.of())) {
            restarted.advance(Duration.ofSeconds(20));
            assertThat(restarted.attempts.isEmpty()).isTrue();
            restarted.advance(Duration.ofSeconds(11));
            assertThat(restarted.attempts.readValue().getAttempt()).isEqualTo(2);
        }
    }

    @Test
    void shouldFireLeaseAndApprovalDeadlinesAfterARestartFromTheActionStoreAlone() throws IOException {
        GateDriver gate = GateDriver.start(stateDir, Map.of(GateConfig.APPROVAL_TIMEOUT_CONFIG, "10m")).demoPolicy();
        gate.propose(GateDriver.lookup("read-1")); // DISPATCHING: lease deadline after 60 s + 60 s
        gate.propose(proposal("wait-1")); // WAITING_APPROVAL: deadline after 10 min
        gate.drain();
        assertThat(ProcessorHarness.count(gate.driver.getKeyValueStore(GateStores.TIMER_INDEX))).isEqualTo(2);
        assertThat(ProcessorHarness.count(gate.driver.getKeyValueStore(GateStores.TIMERS)))
                .as("no action timer is logged").isZero();
        restartInto(gate);
        try (GateDriver restarted = gate.restart(Map.of(GateConfig.APPROVAL_TIMEOUT_CONFIG, "10m"))) {
            assertThat(ProcessorHarness.count(restarted.driver.getKeyValueStore(GateStores.TIMER_INDEX)))
                    .as("the new task rebuilt its timers from gate-actions").isEqualTo(2);
            restarted.advance(Duration.ofSeconds(119));
            assertThat(restarted.receipts()).isEmpty();
            restarted.advance(Duration.ofSeconds(2));
            Receipt lost = restarted.lastReceipt();
            assertThat(lost.getToolCallId()).isEqualTo("read-1");
            assertThat(lost.getStatus()).isEqualTo(ReceiptStatus.UNKNOWN);
            assertThat(lost.getReasonCode()).isEqualTo(ReasonCode.LEASE_EXPIRED.name());
            restarted.advance(Duration.ofMinutes(8));
            Receipt expired = restarted.lastReceipt();
            assertThat(expired.getToolCallId()).isEqualTo("wait-1");
            assertThat(expired.getStatus()).isEqualTo(ReceiptStatus.EXPIRED);
        }
    }

    @Test
    void shouldPurgeASettledActionByTheScanWithoutATimer() {
        try (GateDriver gate = GateDriver.start(stateDir, Map.of(GateConfig.DEDUPE_WINDOW_CONFIG, "1h"))) {
            gate.demoPolicy();
            ActionProposal p = gate.propose(GateDriver.lookup("c-1"));
            gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
            org.apache.kafka.streams.state.KeyValueStore<String, io.actiongate.gate.internal.ActionState> actions =
                    gate.driver.getKeyValueStore(GateStores.ACTIONS);
            assertThat(actions.get(GateDriver.key(p)).timerKey()).as("a settled action has no timer").isNull();
            assertThat(ProcessorHarness.count(gate.driver.getKeyValueStore(GateStores.TIMER_INDEX))).isZero();
            gate.advance(Duration.ofMinutes(59));
            assertThat(actions.get(GateDriver.key(p))).as("kept for the dedupe window").isNotNull();
            // one bucket (a 24th of the window) after the window at most
            gate.advance(Duration.ofMinutes(1).plus(Duration.ofMillis(io.actiongate.gate.internal.TimerProcessor.purgeBucketMillis(
                    gate.config))).plusSeconds(2));
            assertThat(actions.get(GateDriver.key(p))).as("purged by the scan").isNull();
        }
    }

    /** Closes {@code gate}'s stores and leaves its state directory for a new driver on it (a restarted task). */
    private void restartInto(GateDriver gate) throws IOException {
        gate.closeStores(); // a stopping instance writes its stores to disk
        copy(stateDir, snapshot); // the test driver deletes its state directory on close
        try {
            gate.close();
        } catch (org.apache.kafka.streams.errors.InvalidStateStoreException expected) {
            // its stores are already closed
        }
        copy(snapshot, stateDir);
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (!source.getFileName().toString().equals("LOCK")) {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
