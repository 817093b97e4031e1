package io.actiongate.http;

/** A refused {@code POST /v1/proposals} body: the reason code, the member at fault (or null) and why. */
final class ProposalBodyException extends Exception {

    private static final long serialVersionUID = 1L;

    private final ProposalRefusal reason;
    private final String member;
    private final transient String computedDigest;
    private final transient String offeredDigest;

    ProposalBodyException(ProposalRefusal reason, String member, String message) {
        this(reason, member, message, null, null);
    }

    ProposalBodyException(ProposalRefusal reason, String member, String message, String computedDigest,
            String offeredDigest) {
        super(message);
        this.reason = reason;
        this.member = member;
        this.computedDigest = computedDigest;
        this.offeredDigest = offeredDigest;
    }

    ProposalRefusal reason() {
        return reason;
    }

    String member() {
        return member;
    }

    String computedDigest() {
        return computedDigest;
    }

    String offeredDigest() {
        return offeredDigest;
    }
}
