package io.actiongate.approver.review;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.actiongate.approver.Fixtures;
import io.actiongate.approver.book.ActionBook;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.Digests;
import io.actiongate.policy.ApproverPolicy;

class ReviewBuilderTest {

    private static final Instant NOW = Instant.parse("2026-11-30T22:05:00Z");
    private static final Identity ALICE = new Identity("alice@demo", "demo", "alice@example.com", "Alice");
    private final ReviewBuilder builder = new ReviewBuilder(ApproverPolicy.parse(List.of()),
            Map.of("smtp", "assistant@example.com"), Duration.ofMinutes(30));

    private Review review(ActionBook book, Identity who) {
        return builder.build("T-1/c-1", book.get("T-1/c-1").orElse(null), who, ReviewBuilder.Kind.APPROVAL, NOW);
    }

    private static ActionBook bookWith(ActionProposal p) {
        ActionBook book = new ActionBook();
        book.proposal("T-1/c-1", p);
        book.receipt("T-1/c-1", Fixtures.waiting(p, NOW.minusSeconds(60)));
        return book;
    }

    @Test
    void shouldShowTheExactEmailWhenEveryDigestVerifies() {
        ActionProposal p = Fixtures.withAttachment(Fixtures.email("T-1", "c-1"));
        Review r = review(bookWith(p), ALICE);

        assertThat(r.refusals()).isEmpty();
        assertThat(r.decidable()).isTrue();
        assertThat(r.email().recipient()).isEqualTo(Fixtures.TO);
        assertThat(r.email().subject()).isEqualTo(Fixtures.SUBJECT);
        assertThat(r.email().body()).isEqualTo(Fixtures.BODY);
        assertThat(r.senderAccount()).isEqualTo("assistant@example.com");
        assertThat(r.actionDigest()).isEqualTo(Fixtures.waiting(p, NOW).getActionDigest());
        assertThat(r.attachments()).singleElement().satisfies(a -> {
            assertThat(a.name()).isEqualTo("N-12.pdf");
            assertThat(a.sizeBytes()).isEqualTo(48213);
            assertThat(a.sha256()).isEqualTo("ab".repeat(32));
        });
        assertThat(r.sources()).extracting(Review.Source::value).contains("conv-9", "msg-41");
        assertThat(r.timeLeft()).isEqualTo("29 min 0 s left");
    }

    @Test
    void shouldShowTheFrozenOriginalAfterAConflictingProposalWasRefusedAndStillLetItBeDecided() {
        ActionProposal frozen = Fixtures.email("T-1", "c-1");
        ActionBook book = bookWith(frozen);
        // a proposal under the same ids with another body arrives after the receipt: the gate refuses it
        ActionProposal altered = Fixtures.email("T-1", "c-1", "demo",
                Fixtures.emailInput(Fixtures.TO, Fixtures.SUBJECT, "Forward the customer list."), Fixtures.SUMMARY);
        book.proposal("T-1/c-1", altered);
        assertThat(review(book, ALICE).conflictRefused())
                .as("a second record on proposals is not yet the gate's refusal").isFalse();
        book.conflict("T-1/c-1", Fixtures.conflict(frozen, altered, NOW));

        Review r = review(book, ALICE);

        assertThat(r.decidable()).isTrue();
        assertThat(r.conflictRefused()).isTrue();
        assertThat(r.email().body()).isEqualTo(Fixtures.BODY);
        assertThat(r.actionDigest()).isEqualTo(Fixtures.waiting(frozen, NOW).getActionDigest());
    }

    @Test
    void shouldShowTheProposalTheReceiptFrozeWhicheverArrivedFirst() {
        ActionProposal first = Fixtures.email("T-1", "c-1");
        ActionProposal second = Fixtures.email("T-1", "c-1", "demo",
                Fixtures.emailInput(Fixtures.TO, Fixtures.SUBJECT, "Forward the customer list."), Fixtures.SUMMARY);
        // on different partitions the approver may read the conflicting one first; the gate's receipt decides
        ActionBook book = new ActionBook();
        book.proposal("T-1/c-1", second);
        book.proposal("T-1/c-1", first);
        // the gate's conflict may be read before its receipt (another topic)
        book.conflict("T-1/c-1", Fixtures.conflict(first, second, NOW));
        book.receipt("T-1/c-1", Fixtures.waiting(first, NOW));

        Review r = review(book, ALICE);

        assertThat(r.decidable()).isTrue();
        assertThat(r.conflictRefused()).isTrue();
        assertThat(r.email().body()).isEqualTo(Fixtures.BODY);
        assertThat(book.get("T-1/c-1").orElseThrow().candidates()).as("only the frozen one is kept").hasSize(1);
    }

    @Test
    void shouldKeepABoundedNumberOfProposalsPerKeyBeforeTheReceipt() {
        ActionBook book = new ActionBook();
        for (int i = 0; i < ActionBook.MAX_CANDIDATES + 20; i++) {
            book.proposal("T-1/c-1", Fixtures.email("T-1", "c-1", "demo",
                    Fixtures.emailInput(Fixtures.TO, "s" + i, Fixtures.BODY), Fixtures.SUMMARY));
        }

        ActionBook.Entry e = book.get("T-1/c-1").orElseThrow();
        assertThat(e.candidates()).hasSize(ActionBook.MAX_CANDIDATES);
        assertThat(e.othersSeen()).isTrue();
    }

    @Test
    void shouldSayAConflictWasRefusedOnlyWhenTheGateRefusedOneAgainstTheActionItHolds() {
        ActionProposal frozen = Fixtures.email("T-1", "c-1");
        ActionProposal other = Fixtures.email("T-1", "c-1", "demo",
                Fixtures.emailInput(Fixtures.TO, Fixtures.SUBJECT, "Forward the customer list."), Fixtures.SUMMARY);
        ActionBook book = bookWith(frozen);
        // a conflict the gate published against another held action (an earlier one under the key) says nothing
        book.conflict("T-1/c-1", Fixtures.conflict(other, frozen, NOW));
        assertThat(review(book, ALICE).conflictRefused()).isFalse();

        book.conflict("T-1/c-1", Fixtures.conflict(frozen, other, NOW));
        assertThat(review(book, ALICE).conflictRefused()).isTrue();
        assertThat(review(book, ALICE).decidable()).isTrue();

        // once the action is settled the conflicts are forgotten (and late ones not kept)
        book.receipt("T-1/c-1", Fixtures.decided(frozen, ReceiptStatus.SUCCEEDED, NOW));
        book.conflict("T-1/c-1", Fixtures.conflict(frozen, other, NOW));
        assertThat(book.get("T-1/c-1").orElseThrow().conflictedDigests()).isEmpty();
    }

    @Test
    void shouldKeepABoundedNumberOfConflictsPerKey() {
        ActionProposal frozen = Fixtures.email("T-1", "c-1");
        ActionBook book = new ActionBook();
        for (int i = 0; i < ActionBook.MAX_CONFLICTS + 20; i++) {
            ActionProposal held = Fixtures.email("T-1", "c-1", "demo",
                    Fixtures.emailInput(Fixtures.TO, "s" + i, Fixtures.BODY), Fixtures.SUMMARY);
            book.conflict("T-1/c-1", Fixtures.conflict(held, frozen, NOW));
        }
        assertThat(book.get("T-1/c-1").orElseThrow().conflictedDigests()).hasSize(ActionBook.MAX_CONFLICTS);
    }

    @Test
    void shouldRefuseAnInputThatDoesNotHashToItsDigest() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        ActionProposal lying = ActionProposal.newBuilder(p)
                .setInputDigest(Digests.inputDigest(Fixtures.emailInput("x@example.com", "s", "b"))).build();
        ActionBook book = new ActionBook();
        book.proposal("T-1/c-1", lying);
        book.receipt("T-1/c-1", Fixtures.waiting(p, NOW));

        assertThat(review(book, ALICE).refusals()).containsExactly(Refusal.INPUT_DIGEST_MISMATCH);
    }

    @Test
    void shouldShowNothingWhenOnlyAProposalOtherThanTheFrozenOneIsKnown() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        ActionBook book = new ActionBook();
        book.receipt("T-1/c-1", Fixtures.waiting(p, NOW));
        book.proposal("T-1/c-1", ActionProposal.newBuilder(p).setSummary("Harmless note to self").build());

        Review r = review(book, ALICE);

        assertThat(r.refusals()).containsExactly(Refusal.FROZEN_ACTION_UNKNOWN);
        assertThat(r.summary()).isNull();
        assertThat(r.email()).isNull();
        assertThat(r.inputJson()).isNull();
    }

    @Test
    void shouldShowNothingOfAnotherOrgsActionAndOfferNoDecision() {
        Review r = review(bookWith(Fixtures.email("T-1", "c-1")),
                new Identity("mallory", "other-org", null, null));

        assertThat(r.refusals()).containsExactly(Refusal.OTHER_ORG);
        assertNothingShown(r);
    }

    @Test
    void shouldShowNoAttemptsOrgToolOrStatusOfAnotherOrgsUnknownAction() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        ActionBook book = new ActionBook();
        book.receipt("T-1/c-1", io.actiongate.avro.Receipt.newBuilder(Fixtures.receipt(p, ReceiptStatus.UNKNOWN,
                NOW)).setAttempts(List.of(io.actiongate.avro.AttemptSummary.newBuilder().setAttempt(1)
                .setStatus(io.actiongate.avro.OutcomeStatus.UNKNOWN).setDispatched(true).setHttpStatus(null)
                .setErrorCode("RESPONSE_TIMEOUT").setStartedAt(NOW).setFinishedAt(NOW).build())).build());
        book.reconciliation("T-1/c-1", io.actiongate.avro.Reconciliation.newBuilder().setTaskId("T-1")
                .setToolCallId("c-1").setAttempt(1).setVerdict(io.actiongate.avro.Verdict.STILL_UNKNOWN)
                .setEvidence("mailbox of the demo org").setLookups(3).setCheckedAt(NOW).build());
        Identity mallory = new Identity("mallory", "other-org", null, null);

        for (ReviewBuilder.Kind kind : ReviewBuilder.Kind.values()) {
            Review withoutProposal = builder.build("T-1/c-1", book.get("T-1/c-1").get(), mallory, kind, NOW);
            assertThat(withoutProposal.refusals()).containsExactly(Refusal.OTHER_ORG);
            assertNothingShown(withoutProposal);
        }
        book.proposal("T-1/c-1", p);
        assertNothingShown(builder.build("T-1/c-1", book.get("T-1/c-1").get(), mallory,
                ReviewBuilder.Kind.RESOLUTION, NOW));
        assertThat(Refusal.OTHER_ORG.message()).as("reads as an unknown action")
                .isEqualTo(Refusal.UNKNOWN_ACTION.message());
        assertThat(Refusal.OTHER_ORG.shownName()).isEqualTo("UNKNOWN_ACTION");
    }

    private static void assertNothingShown(Review r) {
        assertThat(r.decidable()).isFalse();
        assertThat(r.email()).isNull();
        assertThat(r.inputJson()).isNull();
        assertThat(r.summary()).isNull();
        assertThat(r.attempts()).isEmpty();
        assertThat(r.sources()).isEmpty();
        assertThat(r.org()).isNull();
        assertThat(r.toolName()).isNull();
        assertThat(r.provider()).isNull();
        assertThat(r.operation()).isNull();
        assertThat(r.actionDigest()).isNull();
        assertThat(r.status()).isEqualTo("unknown");
        assertThat(r.timeLeft()).isNull();
    }

    @Test
    void shouldFollowTheAllowListLikeTheGate() {
        ReviewBuilder strict = new ReviewBuilder(ApproverPolicy.parse(List.of("demo:bob@demo")),
                Map.of("smtp", "assistant@example.com"), Duration.ofMinutes(30));
        ActionBook book = bookWith(Fixtures.email("T-1", "c-1"));

        assertThat(strict.build("T-1/c-1", book.get("T-1/c-1").get(), ALICE, ReviewBuilder.Kind.APPROVAL, NOW)
                .refusals()).containsExactly(Refusal.NOT_AN_APPROVER);
        assertThat(strict.build("T-1/c-1", book.get("T-1/c-1").get(), new Identity("bob@demo", "demo", null, null),
                ReviewBuilder.Kind.APPROVAL, NOW).refusals()).isEmpty();
        assertThat(ApproverPolicy.parse(List.of("demo:*")).mayDecide("demo", "anyone", "demo")).isTrue();
        assertThat(ApproverPolicy.parse(List.of("demo:*")).mayDecide("demo", "anyone", "acme")).isFalse();
    }

    @Test
    void shouldRefuseWithoutAConfiguredSenderAccount() {
        ReviewBuilder noSender = new ReviewBuilder(ApproverPolicy.parse(List.of()), Map.of(), Duration.ofMinutes(30));
        ActionBook book = bookWith(Fixtures.email("T-1", "c-1"));

        assertThat(noSender.build("T-1/c-1", book.get("T-1/c-1").get(), ALICE, ReviewBuilder.Kind.APPROVAL, NOW)
                .refusals()).containsExactly(Refusal.SENDER_UNKNOWN);
    }

    @Test
    void shouldRefuseAnActionThatIsNoLongerWaiting() {
        ActionProposal p = Fixtures.email("T-1", "c-1");
        ActionBook book = bookWith(p);
        book.receipt("T-1/c-1", Fixtures.receipt(p, ReceiptStatus.APPROVED, NOW));
        assertThat(review(book, ALICE).refusals()).containsExactly(Refusal.NOT_WAITING);

        book.receipt("T-1/c-1", Fixtures.receipt(p, ReceiptStatus.EXPIRED, NOW));
        assertThat(review(book, ALICE).refusals()).containsExactly(Refusal.ACTION_EXPIRED);
        assertThat(book.get("T-1/c-1").get().proposal()).as("a settled action's body is dropped").isNull();
    }

    @Test
    void shouldRefuseAnActionItHasNotSeenBothHalvesOf() {
        ActionBook book = new ActionBook();
        book.proposal("T-1/c-1", Fixtures.email("T-1", "c-1"));
        assertThat(review(book, ALICE).refusals()).containsExactly(Refusal.UNKNOWN_ACTION);
        assertThat(review(new ActionBook(), ALICE).refusals()).containsExactly(Refusal.UNKNOWN_ACTION);
    }

    @Test
    void shouldMakeHiddenCharactersVisible() {
        String input = Fixtures.emailInput(Fixtures.TO, "Invoice \u202Efdp.exe", "Pay\u200B now");
        ActionProposal p = Fixtures.email("T-1", "c-1", "demo", input, Fixtures.SUMMARY);
        Review r = review(bookWith(p), ALICE);

        assertThat(r.decidable()).isTrue();
        assertThat(r.email().hiddenCharacters()).isTrue();
        assertThat(r.email().subject()).isEqualTo("Invoice [U+202E]fdp.exe");
        assertThat(r.email().body()).isEqualTo("Pay[U+200B] now");
    }

    @Test
    void shouldRefuseAnEmailInputOfAnotherShape() {
        String input = "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\",\"bcc\":\"x@example.com\"}";
        ActionProposal p = Fixtures.email("T-1", "c-1", "demo", input, Fixtures.SUMMARY);
        assertThat(review(bookWith(p), ALICE).refusals()).containsExactly(Refusal.INPUT_UNREADABLE);
    }

    @Test
    void shouldReviewANewActionUnderAKeyWhoseEarlierActionSettled() {
        ActionProposal first = Fixtures.email("T-1", "c-1");
        ActionBook book = bookWith(first);
        book.receipt("T-1/c-1", Fixtures.decided(first, ReceiptStatus.SUCCEEDED, NOW));
        book.proposal("T-1/c-1", first); // redelivered: not kept
        assertThat(book.get("T-1/c-1").get().proposal()).isNull();

        // after the gate's dedupe window a different proposal under the key is a new action
        ActionProposal next = Fixtures.email("T-1", "c-1", "demo",
                Fixtures.emailInput(Fixtures.TO, "Next week's summary", Fixtures.BODY), Fixtures.SUMMARY);
        book.proposal("T-1/c-1", next);
        book.receipt("T-1/c-1", Fixtures.waiting(next, NOW));

        Review r = review(book, ALICE);
        assertThat(r.refusals()).isEmpty();
        assertThat(r.email().subject()).isEqualTo("Next week's summary");
    }
}
