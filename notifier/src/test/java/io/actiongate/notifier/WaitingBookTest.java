package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ReceiptStatus;

class WaitingBookTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    final WaitingBook book = new WaitingBook();

    @Test
    void shouldKnowTheFrozenProposalWhicheverTopicIsReadFirst() {
        ActionProposal a = Actions.proposal("T-1", "a", "proposal first");
        book.proposal(Actions.key(a), a);
        book.receipt(Actions.key(a), Actions.receipt(a, ReceiptStatus.WAITING_APPROVAL, T0));
        ActionProposal b = Actions.proposal("T-1", "b", "receipt first");
        book.receipt(Actions.key(b), Actions.receipt(b, ReceiptStatus.WAITING_APPROVAL, T0));
        assertThat(book.waiting()).hasSize(1);
        assertThat(book.waitingWithoutProposal()).isEqualTo(1);
        book.proposal(Actions.key(b), b);

        assertThat(book.waiting()).extracting(w -> w.proposal().summary())
                .containsExactlyInAnyOrder("proposal first", "receipt first");
        assertThat(book.waiting()).allSatisfy(w -> assertThat(w.since()).isEqualTo(T0));
    }

    @Test
    void shouldShowTheFrozenProposalNotALaterConflictingOne() {
        ActionProposal held = Actions.proposal("T-1", "a", "the held one");
        ActionProposal other = Actions.proposal("T-1", "a", "a conflicting one");
        book.proposal(Actions.key(held), held);
        book.proposal(Actions.key(other), other);
        book.receipt(Actions.key(held), Actions.receipt(held, ReceiptStatus.WAITING_APPROVAL, T0));
        book.proposal(Actions.key(other), other);

        assertThat(book.waiting()).singleElement().satisfies(w ->
                assertThat(w.proposal().summary()).isEqualTo("the held one"));
    }

    @Test
    void shouldForgetAnActionOnceItNoLongerWaits() {
        ActionProposal a = Actions.proposal("T-1", "a", "s");
        book.proposal(Actions.key(a), a);
        book.receipt(Actions.key(a), Actions.receipt(a, ReceiptStatus.WAITING_APPROVAL, T0));
        book.receipt(Actions.key(a), Actions.receipt(a, ReceiptStatus.DENIED, T0.plusSeconds(5)));
        book.proposal(Actions.key(a), a); // a redelivery after the end

        assertThat(book.waiting()).isEmpty();
        assertThat(book.waitingWithoutProposal()).isZero();
    }

    @Test
    void shouldForgetWhatATombstoneOnProposalsErased() {
        ActionProposal a = Actions.proposal("T-1", "a", "s");
        book.proposal(Actions.key(a), a);
        book.receipt(Actions.key(a), Actions.receipt(a, ReceiptStatus.WAITING_APPROVAL, T0));

        book.forgetProposal(Actions.key(a));

        assertThat(book.waiting()).isEmpty();
    }
}
