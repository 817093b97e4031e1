package io.actiongate.approver.review;

import java.util.List;

/**
 * One frozen action as the review page shows it, after re-deriving its digests, with every reason it may not be
 * decided. {@link #decidable()} is true only when there is no refusal: the page offers the decision buttons only then,
 * and the POST handler rebuilds the review and checks again.
 */
public record Review(
        String key,
        String taskId,
        String toolCallId,
        String status,
        String org,
        String provider,
        String senderAccount,
        String operation,
        String toolName,
        Email email,
        String inputJson,
        String summary,
        List<Source> sources,
        List<AttachmentView> attachments,
        String inputDigest,
        String actionDigest,
        String waitingSince,
        String timeLeft,
        List<AttemptView> attempts,
        List<Refusal> refusals,
        boolean conflictRefused) {

    /** What the issue asks every reviewer to read before approving. */
    public static final String CONSEQUENCES = "This will disclose the body above outside the private workspace. "
            + "Sending cannot reliably be recalled.";

    public Review {
        sources = List.copyOf(sources);
        attachments = List.copyOf(attachments);
        attempts = List.copyOf(attempts);
        refusals = List.copyOf(refusals);
    }

    /**
     * A review that shows nothing of the action but its key, refused for {@code why}. The key is the page's path,
     * input of the request for an action nobody knows: a well-known credential shape in it is masked.
     */
    public static Review nothing(String key, Refusal why) {
        return new Review(io.actiongate.secrets.Redaction.redact(key), null, null, "unknown", null, null, null, null, null, null, null, null, List.of(),
                List.of(), null, null, null, null, List.of(), List.of(why), false);
    }

    /** Whether this is about another org's action: then the page must show nothing of it. */
    public boolean hidden() {
        return refusals.contains(Refusal.OTHER_ORG);
    }

    public boolean decidable() {
        return refusals.isEmpty();
    }

    public String consequences() {
        return CONSEQUENCES;
    }

    /** The email an smtp {@code send_email} action would send, exactly, with hidden characters made visible. */
    public record Email(String recipient, boolean recipientNonAscii, String subject, String body,
                        boolean hiddenCharacters) {
    }

    /** Where the request came from (ids, never text a model wrote). */
    public record Source(String label, String value) {
    }

    public record AttachmentView(String name, String objectKey, long sizeBytes, String sha256, String contentType) {
    }

    /** One attempt of an {@code UNKNOWN} action: the gate's summary, the executor's failure, the reconciler's word. */
    public record AttemptView(int attempt, String status, boolean dispatched, String httpStatus, String errorCode,
                              String errorDetail, String startedAt, String finishedAt, String verdict, String evidence,
                              String lookups, String checkedAt) {
    }
}
