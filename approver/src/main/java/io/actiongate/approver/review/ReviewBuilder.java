package io.actiongate.approver.review;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.approver.book.ActionBook;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Reconciliation;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.digest.Jcs;
import io.actiongate.policy.ApproverPolicy;

/**
 * Builds the {@link Review} of one action for one signed-in person: re-derives {@code input_digest} and
 * {@code action_digest} from the proposal it will show and checks them against the gate's receipt, checks the
 * receipt's status for the kind of decision, the person's org and the allow-list, and the configured sender account.
 * Any failed check becomes a {@link Refusal}; the review is decidable only with none.
 */
public final class ReviewBuilder {

    static {
        io.actiongate.serde.AvroSetup.install();
    }

    /** Which decisions the page offers. */
    public enum Kind {
        /** APPROVE or REJECT an action in {@code WAITING_APPROVAL}. */
        APPROVAL(ReceiptStatus.WAITING_APPROVAL),
        /** RESOLVE_EFFECT_CONFIRMED or RESOLVE_NO_EFFECT for an action in {@code UNKNOWN}. */
        RESOLUTION(ReceiptStatus.UNKNOWN);

        private final ReceiptStatus status;

        Kind(ReceiptStatus status) {
            this.status = status;
        }

        public ReceiptStatus status() {
            return status;
        }
    }

    private final ApproverPolicy approvers;
    private final Map<String, String> senderAccounts;
    private final Duration approvalWait;

    public ReviewBuilder(ApproverPolicy approvers, Map<String, String> senderAccounts, Duration approvalWait) {
        this.approvers = approvers;
        this.senderAccounts = Map.copyOf(senderAccounts);
        this.approvalWait = approvalWait;
    }

    public Review build(String key, ActionBook.Entry entry, Identity who, Kind kind, Instant now) {
        List<Refusal> refusals = new ArrayList<>();
        ActionProposal p = entry == null ? null : entry.proposal();
        Receipt r = entry == null ? null : entry.receipt();
        // another org's action shows nothing at all, not even that it exists: the page reads as an unknown action
        // (the audit log says OTHER_ORG); every org the key is known under is checked, receipt and proposals alike
        if (entry != null && otherOrg(entry, who)) {
            return Review.nothing(key, Refusal.OTHER_ORG);
        }
        if (entry != null && entry.frozenProposalUnknown()) {
            return Review.nothing(key, Refusal.FROZEN_ACTION_UNKNOWN);
        }
        if (p == null || r == null) {
            if (r != null && r.getStatus() != kind.status()) {
                refusals.add(r.getStatus() == ReceiptStatus.EXPIRED ? Refusal.ACTION_EXPIRED : Refusal.NOT_WAITING);
            } else {
                refusals.add(Refusal.UNKNOWN_ACTION);
            }
            if (r == null) {
                return Review.nothing(key, Refusal.UNKNOWN_ACTION);
            }
            return new Review(key, null, null, r.getStatus().name(), r.getOrgId(), r.getProvider(), null,
                    r.getOperation(), r.getToolName(), null, null, null, List.of(), List.of(), null,
                    r.getActionDigest(), null, null, attempts(entry), refusals, false);
        }

        if (r.getStatus() != kind.status()) {
            refusals.add(r.getStatus() == ReceiptStatus.EXPIRED ? Refusal.ACTION_EXPIRED : Refusal.NOT_WAITING);
        }
        String inputDigest = null;
        String actionDigest = null;
        try {
            inputDigest = Digests.inputDigest(p.getInputJson());
            actionDigest = Digests.actionDigest(FrozenAction.of(p));
        } catch (IllegalArgumentException e) {
            refusals.add(Refusal.INPUT_UNREADABLE);
        }
        if (inputDigest == null || !inputDigest.equals(p.getInputDigest())
                || !inputDigest.equals(r.getInputDigest())) {
            refusals.add(Refusal.INPUT_DIGEST_MISMATCH);
        }
        if (actionDigest == null || !actionDigest.equals(r.getActionDigest())) {
            refusals.add(Refusal.ACTION_DIGEST_MISMATCH);
        }
        if (!Objects.equals(r.getToolName(), p.getToolName()) || !Objects.equals(r.getProvider(), p.getProvider())
                || !Objects.equals(r.getOperation(), p.getOperation())
                || (r.getOrgId() != null && !r.getOrgId().equals(p.getOrgId()))) {
            refusals.add(Refusal.RECEIPT_MISMATCH);
        }
        if (!approvers.mayDecide(who.org(), who.subject(), p.getOrgId())) {
            refusals.add(Refusal.NOT_AN_APPROVER);
        }
        String sender = senderAccounts.get(p.getProvider());
        if (sender == null) {
            refusals.add(Refusal.SENDER_UNKNOWN);
        }

        Review.Email email = null;
        if ("smtp".equals(p.getProvider()) && "send_email".equals(p.getOperation())) {
            email = email(p.getInputJson());
            if (email == null) {
                refusals.add(Refusal.INPUT_UNREADABLE);
            }
        }
        Instant waitingSince = r.getUpdatedAt();
        String timeLeft = null;
        if (r.getStatus() == ReceiptStatus.WAITING_APPROVAL && waitingSince != null) {
            timeLeft = human(Duration.between(now, waitingSince.plus(approvalWait)));
        }
        return new Review(key, p.getTaskId(), p.getToolCallId(), r.getStatus().name(), p.getOrgId(),
                p.getProvider(), sender, p.getOperation(), p.getToolName(), email,
                Visible.reveal(p.getInputJson()), Visible.reveal(p.getSummary()), sources(p), attachments(p),
                inputDigest, actionDigest, waitingSince == null ? null : waitingSince.toString(), timeLeft,
                attempts(entry), dedupe(refusals), entry.conflictRefused());
    }

    /**
     * Whether the action is another org's: by the gate's receipt when it names the org, otherwise by any proposal
     * under the key (when in doubt, it is not shown).
     */
    private static boolean otherOrg(ActionBook.Entry entry, Identity who) {
        if (entry.receipt() != null && entry.receipt().getOrgId() != null) {
            return !ApproverPolicy.sameOrg(who.org(), entry.receipt().getOrgId());
        }
        return entry.candidates().stream().anyMatch(c -> !ApproverPolicy.sameOrg(who.org(), c.proposal().getOrgId()));
    }

    /** When the gate stops waiting for a decision on this receipt (its time plus the approval wait). */
    public Instant deadline(Receipt r) {
        return r.getUpdatedAt().plus(approvalWait);
    }

    private static List<Refusal> dedupe(List<Refusal> refusals) {
        return refusals.stream().distinct().toList();
    }

    /** The three fields of the smtp connector's input, or null when the input is not exactly that shape. */
    static Review.Email email(String inputJson) {
        JsonNode node;
        try {
            node = Jcs.parse(inputJson);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (!node.isObject() || node.size() != 3) {
            return null;
        }
        JsonNode to = node.get("to");
        JsonNode subject = node.get("subject");
        JsonNode body = node.get("body");
        if (to == null || subject == null || body == null || !to.isTextual() || !subject.isTextual()
                || !body.isTextual()) {
            return null;
        }
        String recipient = to.asText();
        boolean nonAscii = recipient.codePoints().anyMatch(c -> c > 0x7E || c < 0x21);
        boolean hidden = Visible.hasHidden(recipient) || Visible.hasHidden(subject.asText())
                || Visible.hasHidden(body.asText());
        return new Review.Email(Visible.reveal(recipient), nonAscii, Visible.reveal(subject.asText()),
                Visible.reveal(body.asText()), hidden);
    }

    private static List<Review.Source> sources(ActionProposal p) {
        List<Review.Source> s = new ArrayList<>();
        s.add(new Review.Source("requested for (principal)", p.getPrincipalId()));
        s.add(new Review.Source("assistant profile", p.getProfileId()));
        s.add(new Review.Source("task", p.getTaskId() + " (version " + p.getTaskVersion() + ")"));
        if (p.getOrigin() != null) {
            s.add(new Review.Source("conversation", p.getOrigin().getConversationId()));
            s.add(new Review.Source("turn", p.getOrigin().getTurnId()));
            if (p.getOrigin().getHumanMessageId() != null) {
                s.add(new Review.Source("human message", p.getOrigin().getHumanMessageId()));
            }
            if (p.getOrigin().getAssistantMessageId() != null) {
                s.add(new Review.Source("assistant message", p.getOrigin().getAssistantMessageId()));
            }
        }
        if (p.getBusinessOperationId() != null) {
            s.add(new Review.Source("business operation", p.getBusinessOperationId()));
        }
        s.add(new Review.Source("authorization epoch", Long.toString(p.getAuthorizationEpoch())));
        s.add(new Review.Source("proposed at", p.getProposedAt().toString()));
        return s.stream().map(x -> new Review.Source(x.label(), Visible.reveal(x.value()))).toList();
    }

    private static List<Review.AttachmentView> attachments(ActionProposal p) {
        List<Review.AttachmentView> out = new ArrayList<>();
        for (Attachment a : p.getAttachments()) {
            String k = a.getObjectKey();
            String name = k.substring(k.lastIndexOf('/') + 1);
            out.add(new Review.AttachmentView(Visible.reveal(name), Visible.reveal(k), a.getSizeBytes(),
                    a.getSha256(), Visible.reveal(a.getContentType())));
        }
        return out;
    }

    private static List<Review.AttemptView> attempts(ActionBook.Entry entry) {
        if (entry == null || entry.receipt() == null) {
            return List.of();
        }
        List<Review.AttemptView> out = new ArrayList<>();
        for (AttemptSummary a : entry.receipt().getAttempts()) {
            AttemptOutcome o = entry.outcomes().get(a.getAttempt());
            Reconciliation rc = entry.reconciliations().get(a.getAttempt());
            out.add(new Review.AttemptView(a.getAttempt(), a.getStatus().name(), a.getDispatched(),
                    a.getHttpStatus() == null ? null : a.getHttpStatus().toString(), a.getErrorCode(),
                    o == null ? null : Visible.reveal(o.getErrorDetail()),
                    str(a.getStartedAt()), str(a.getFinishedAt()),
                    rc == null ? null : rc.getVerdict().name(), rc == null ? null : Visible.reveal(rc.getEvidence()),
                    rc == null ? null : Integer.toString(rc.getLookups()), rc == null ? null : str(rc.getCheckedAt())));
        }
        // reconciliations of attempts the receipt does not list yet are still evidence
        for (Iterator<Map.Entry<Integer, Reconciliation>> it = entry.reconciliations().entrySet().iterator();
             it.hasNext(); ) {
            Map.Entry<Integer, Reconciliation> e = it.next();
            if (out.stream().noneMatch(v -> v.attempt() == e.getKey())) {
                Reconciliation rc = e.getValue();
                out.add(new Review.AttemptView(e.getKey(), "?", true, null, null, null, null, null,
                        rc.getVerdict().name(), Visible.reveal(rc.getEvidence()), Integer.toString(rc.getLookups()),
                        str(rc.getCheckedAt())));
            }
        }
        return out;
    }

    private static String str(Instant i) {
        return i == null ? null : i.toString();
    }

    /** "9 min 12 s left" style; "expired" when not positive. */
    public static String human(Duration d) {
        if (d.isNegative() || d.isZero()) {
            return "no time left";
        }
        long s = d.getSeconds();
        if (s >= 3600) {
            return (s / 3600) + " h " + (s % 3600) / 60 + " min left";
        }
        if (s >= 60) {
            return (s / 60) + " min " + (s % 60) + " s left";
        }
        return s + " s left";
    }
}
