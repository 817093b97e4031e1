package io.actiongate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;

/** The client against the real gate on an embedded broker: one gate for the class, one action per test. */
class ActionGateClientIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String INPUT = "{\"to\":\"ops@example.com\",\"body\":\"disk is full\"}";

    @TempDir
    static Path stateDir;

    static GateFixture gate;
    static ActionGateClient client;

    @BeforeAll
    static void startGate(TestInfo test) {
        gate = new GateFixture(KAFKA, TestNames.topicPrefix(test), TestNames.applicationId(test), stateDir);
        client = gate.client();
    }

    @AfterAll
    static void stopGate() {
        if (client != null) {
            client.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    @Test
    void shouldWaitForApprovalThenCompleteOnTheTerminalReceipt() throws InterruptedException {
        ProposalRequest request = GateFixture.send("c-approve", INPUT).build();
        ProposalHandle waiting = client.propose(request, Until.WAITING_APPROVAL, WAIT);
        ActionReceipt first = waiting.await();
        assertThat(first.state()).isEqualTo(ReceiptState.WAITING_APPROVAL);
        assertThat(first.actionDigest()).isEqualTo(waiting.actionDigest());
        assertThat(first.actionKey()).isEqualTo("T-1/c-approve");

        ProposalHandle settled = client.propose(request, Until.TERMINAL, WAIT);
        gate.approve(GateFixture.TASK, "c-approve", waiting.actionDigest());
        gate.succeed(GateFixture.TASK, "c-approve", 1);
        ActionReceipt done = settled.await();
        assertThat(done.state()).isEqualTo(ReceiptState.SUCCEEDED);
        assertThat(done.providerReceiptId()).isEqualTo("prov-c-approve");
        assertThat(done.attempts()).isEqualTo(1);
    }

    @Test
    void shouldFetchNothingWhileNobodyWaitsAndMissNoReceiptWhenSomebodyDoesAgain() throws InterruptedException {
        ProposalRequest request = GateFixture.send("c-idle", INPUT).build();
        ProposalHandle first = client.propose(request, Until.WAITING_APPROVAL, WAIT);
        assertThat(first.await().state()).isEqualTo(ReceiptState.WAITING_APPROVAL);
        // nobody waits any more: the receipts consumer pauses (no fetch per gate commit)
        await().atMost(Duration.ofSeconds(10)).until(client::receiptsPaused);

        // the action settles while nobody waits; a watch registered afterwards still hears what comes next
        java.util.List<ReceiptState> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        gate.approve(GateFixture.TASK, "c-idle", first.actionDigest());
        AutoCloseable watch = client.watch(GateFixture.TASK, "c-idle", r -> heard.add(r.state()));
        try (watch) {
            // the watch wakes the poll thread, which resumes the consumer on its own thread
            await().atMost(Duration.ofSeconds(10)).until(() -> !client.receiptsPaused());
            gate.succeed(GateFixture.TASK, "c-idle", 1);
            await().atMost(WAIT).until(() -> heard.contains(ReceiptState.SUCCEEDED));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        await().atMost(Duration.ofSeconds(10)).until(client::receiptsPaused);

        // and a new proposal after the pause gets its receipt
        ActionReceipt again = client.propose(request, Until.TERMINAL, WAIT).await();
        assertThat(again.state()).isEqualTo(ReceiptState.SUCCEEDED);
    }

    @Test
    void shouldCompleteOnARejectionWithItsReasonCode() throws InterruptedException {
        // the tool schema hash differs from the live descriptor's: the gate rejects at admission
        ProposalRequest request = GateFixture.send("c-reject", INPUT)
                .tool(GateFixture.PROVIDER, GateFixture.SEND, GateFixture.SEND, "sha256:other-schema").build();
        ActionReceipt receipt = client.propose(request, Until.TERMINAL, WAIT).await();
        assertThat(receipt.state()).isEqualTo(ReceiptState.REJECTED);
        assertThat(receipt.reasonCode()).isEqualTo("TOOL_SCHEMA_CHANGED");
    }

    @Test
    void shouldMakeARedeliveredCallHarmless() throws InterruptedException {
        ProposalRequest request = GateFixture.send("c-redeliver", INPUT).build();
        ProposalHandle first = client.propose(request, Until.WAITING_APPROVAL, WAIT);
        assertThat(first.await().state()).isEqualTo(ReceiptState.WAITING_APPROVAL);
        // the tool host crashed and runs the same call again: same key, same digests, a fresh proposed_at
        ProposalHandle again = client.propose(GateFixture.send("c-redeliver", INPUT).build(), Until.WAITING_APPROVAL,
                WAIT);
        assertThat(again.actionDigest()).isEqualTo(first.actionDigest());
        assertThat(again.await().state()).isEqualTo(ReceiptState.WAITING_APPROVAL);

        ProposalHandle settled = client.propose(request, Until.TERMINAL, WAIT);
        gate.approve(GateFixture.TASK, "c-redeliver", first.actionDigest());
        gate.succeed(GateFixture.TASK, "c-redeliver", 1);
        assertThat(settled.await().state()).isEqualTo(ReceiptState.SUCCEEDED);
        // the current state, whatever it is: the stored receipt, re-published for the redelivery
        assertThat(client.propose(request, Until.ANY, WAIT).await().state()).isEqualTo(ReceiptState.SUCCEEDED);
        // redelivered after it settled: the stored receipt, no second attempt
        ActionReceipt late = client.propose(request, Until.TERMINAL, WAIT).await();
        assertThat(late.state()).isEqualTo(ReceiptState.SUCCEEDED);
        assertThat(late.attempts()).isEqualTo(1);
        assertThat(gate.attempts("c-redeliver")).hasSize(1);
    }

    @Test
    void shouldSurfaceAnIdentityConflictAsAnError() throws InterruptedException {
        ProposalHandle original = client.propose(GateFixture.send("c-conflict", INPUT).build(),
                Until.WAITING_APPROVAL, WAIT);
        assertThat(original.await().state()).isEqualTo(ReceiptState.WAITING_APPROVAL);

        ProposalHandle other = client.propose(GateFixture.send("c-conflict",
                "{\"to\":\"everyone@example.com\",\"body\":\"disk is full\"}").build(), Until.WAITING_APPROVAL, WAIT);
        assertThatThrownBy(other::await).isInstanceOfSatisfying(IdentityConflictException.class, e -> {
            assertThat(e.actionKey()).isEqualTo("T-1/c-conflict");
            assertThat(e.existingDigest()).isEqualTo(original.actionDigest());
            assertThat(e.offeredDigest()).isEqualTo(other.actionDigest());
        });
        assertThat(gate.attempts("c-conflict")).isEmpty();
    }

    @Test
    void shouldSurfaceAConflictOfAnotherOrgWithTheSameInputAsAnError() throws InterruptedException {
        ProposalHandle original = client.propose(GateFixture.send("c-tenant", INPUT).build(),
                Until.WAITING_APPROVAL, WAIT);
        assertThat(original.await().state()).isEqualTo(ReceiptState.WAITING_APPROVAL);
        // the same key, tool and input from another org: the held action's receipt is not this offer's answer
        ProposalHandle other = client.propose(GateFixture.send("c-tenant", INPUT).identity("globex", "user-1").build(),
                Until.ANY, WAIT);
        assertThat(other.inputDigest()).isEqualTo(original.inputDigest());
        assertThatThrownBy(other::await).isInstanceOfSatisfying(IdentityConflictException.class, e -> {
            assertThat(e.existingDigest()).isEqualTo(original.actionDigest());
            assertThat(e.offeredDigest()).isEqualTo(other.actionDigest());
        });
    }

    @Test
    void shouldMatchAReceiptByKeyAndFullActionDigestOnly() throws InterruptedException {
        // T-unknown has no TaskState: the gate refuses without a receipt, so only the receipts written here arrive
        ProposalRequest request = GateFixture.send("c-match", INPUT).action("T-unknown", "c-match").build();
        ProposalHandle handle = client.propose(request, Until.ANY, WAIT);
        // another org's receipt under the same key, tool and input digest, naming another frozen action
        gate.publishReceipt(GateFixture.receipt(handle.actionKey(), "globex", handle.inputDigest(),
                "sha256:" + "0".repeat(64)));
        gate.publishReceipt(GateFixture.receipt(handle.actionKey(), GateFixture.ORG, handle.inputDigest(),
                handle.actionDigest()));
        ActionReceipt receipt = handle.await();
        assertThat(receipt.actionDigest()).isEqualTo(handle.actionDigest());
    }

    @Test
    void shouldTimeOutWithTheLatestReceiptWhenNothingTerminalArrives() throws InterruptedException {
        // long enough for the WAITING_APPROVAL receipt (about a second), short enough not to idle the suite
        ProposalHandle handle = client.propose(GateFixture.send("c-timeout", INPUT).build(), Until.TERMINAL,
                Duration.ofSeconds(6));
        assertThatThrownBy(handle::await).isInstanceOfSatisfying(ReceiptTimeoutException.class,
                e -> assertThat(e.latest().state()).isEqualTo(ReceiptState.WAITING_APPROVAL));
        assertThat(client.isRunning()).isTrue();
    }

    @Test
    void shouldPublishNothingForAnInvalidProposal() {
        assertThatThrownBy(() -> client.propose(GateFixture.send("bad/id", INPUT).build(), Until.TERMINAL, WAIT))
                .isInstanceOfSatisfying(InvalidProposalException.class,
                        e -> assertThat(e.field()).isEqualTo("tool_call_id"));
        assertThat(List.of(client.isRunning())).containsExactly(true);
    }
}
