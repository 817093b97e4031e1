package io.actiongate.approver.book;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.approver.Fixtures;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ResolvedBy;

class ActionBookTest {

    private static final Instant NOW = Instant.parse("2026-12-07T15:00:00Z");
    private static final String KEY = "T-1/c-1";

    private static AttemptOutcome succeeded(ActionProposal p) {
        return AttemptOutcome.newBuilder().setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId()).setAttempt(1)
                .setStatus(OutcomeStatus.SUCCEEDED).setDispatched(true).setStartedAt(NOW).setFinishedAt(NOW).build();
    }

    /** What the gate publishes for an auto-approved read, in the order the service may read it. */
    private static void autoApproved(ActionBook book, ActionProposal p) {
        book.proposal(KEY, p);
        book.receipt(KEY, Fixtures.receipt(p, ReceiptStatus.DISPATCHING, NOW));
        book.outcome(KEY, succeeded(p));
        book.receipt(KEY, Fixtures.receipt(p, ReceiptStatus.SUCCEEDED, NOW));
    }

    @Test
    void shouldHoldNothingOfAnActionThatSettledWithoutWaitingForAPerson() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        ActionBook book = new ActionBook();
        autoApproved(book, p);

        assertThat(book.get(KEY)).isEmpty();
        assertThat(book.size()).as("still known, so that its proposal read again is recognised").isEqualTo(1);

        // read again after its receipt (a redelivery, or the topics read in another order at a start): not kept
        book.proposal(KEY, p);
        book.outcome(KEY, succeeded(p));
        book.conflict(KEY, Fixtures.conflict(p, Fixtures.email("T-1", "c-1", "demo",
                Fixtures.emailInput(Fixtures.TO, "other", Fixtures.BODY), Fixtures.SUMMARY), NOW));
        assertThat(book.get(KEY)).isEmpty();
        assertThat(book.size()).isEqualTo(1);
    }

    @Test
    void shouldHoldNothingOfAnActionRefusedAtAdmissionWhicheverTopicIsReadFirst() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        Receipt rejected = Receipt.newBuilder(Fixtures.receipt(p, ReceiptStatus.REJECTED, NOW))
                .setReasonCode("SCHEMA_INVALID").build();

        ActionBook receiptFirst = new ActionBook();
        receiptFirst.receipt(KEY, rejected);
        receiptFirst.proposal(KEY, p);
        ActionBook proposalFirst = new ActionBook();
        proposalFirst.proposal(KEY, p);
        proposalFirst.receipt(KEY, rejected);

        assertThat(receiptFirst.get(KEY)).isEmpty();
        assertThat(proposalFirst.get(KEY)).isEmpty();
    }

    @Test
    void shouldKeepWhatAPersonMayComeBackTo() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        Receipt reconciled = Receipt.newBuilder(Fixtures.receipt(p, ReceiptStatus.NOT_APPLIED, NOW))
                .setResolvedBy(ResolvedBy.RECONCILER).build();
        Receipt owners = Receipt.newBuilder(Fixtures.receipt(p, ReceiptStatus.SUCCEEDED, NOW))
                .setResolvedBy(ResolvedBy.OWNER).build();
        for (Receipt settled : new Receipt[] {Fixtures.decided(p, ReceiptStatus.SUCCEEDED, NOW),
                Fixtures.decided(p, ReceiptStatus.DENIED, NOW), Fixtures.receipt(p, ReceiptStatus.EXPIRED, NOW),
                Fixtures.receipt(p, ReceiptStatus.CANCELLED, NOW), reconciled, owners}) {
            ActionBook book = new ActionBook();
            book.proposal(KEY, p);
            book.receipt(KEY, Fixtures.waiting(p, NOW));
            book.outcome(KEY, succeeded(p));
            book.receipt(KEY, settled);

            assertThat(book.get(KEY)).as("%s, decision %s, resolved by %s", settled.getStatus(),
                    settled.getDecisionId(), settled.getResolvedBy()).hasValueSatisfying(e -> {
                        assertThat(e.receipt()).isEqualTo(settled);
                        assertThat(e.outcomes()).containsKey(1);
                        assertThat(e.proposal()).as("a settled action's body is dropped").isNull();
                    });
        }
    }

    /** After the gate's dedupe window another input under the same ids is a new action, which may wait. */
    private static ActionProposal nextUnderTheKey() {
        return Fixtures.email("T-1", "c-1", "demo",
                Fixtures.emailInput(Fixtures.TO, "Next week's summary", Fixtures.BODY), Fixtures.SUMMARY);
    }

    private static ActionBook settledUnattended() {
        ActionBook book = new ActionBook();
        autoApproved(book, Fixtures.email("T-1", "c-1"));
        return book;
    }

    @Test
    void shouldKeepANewActionUnderTheKeyOfOneThatSettledUnattended() {
        ActionBook book = settledUnattended();
        ActionProposal next = nextUnderTheKey();
        book.proposal(KEY, next);
        book.receipt(KEY, Fixtures.waiting(next, NOW));

        assertThat(book.get(KEY)).hasValueSatisfying(e -> {
            assertThat(e.proposal()).isEqualTo(next);
            assertThat(e.receipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        });
        assertThat(book.byStatus("demo", ReceiptStatus.WAITING_APPROVAL)).hasSize(1);
        assertThat(book.size()).isEqualTo(1);
    }

    @Test
    void shouldKeepANewActionWhoseReceiptIsReadBeforeItsProposal() {
        ActionBook book = settledUnattended();
        ActionProposal next = nextUnderTheKey();
        book.receipt(KEY, Fixtures.waiting(next, NOW));
        book.proposal(KEY, next);

        assertThat(book.get(KEY).map(ActionBook.Entry::proposal)).contains(next);
    }

    @Test
    void shouldTellInputsApartByTheirDigestsFingerprint() {
        String a = "sha256:" + "0123456789abcdef".repeat(4);
        String b = "sha256:" + "fedcba9876543210".repeat(4);
        assertThat(ActionBook.fingerprint(a)).isEqualTo(0x0123456789abcdefL).isNotEqualTo(ActionBook.fingerprint(b));
        assertThat(ActionBook.fingerprint("sha256:" + "f".repeat(64))).isEqualTo(-1L);
        // another form still gets a fingerprint of its own
        assertThat(ActionBook.fingerprint("not a digest")).isEqualTo((long) "not a digest".hashCode());
        assertThat(ActionBook.fingerprint("sha256:" + "z".repeat(64))).isEqualTo((long) ("sha256:" + "z".repeat(64))
                .hashCode());
    }
}
