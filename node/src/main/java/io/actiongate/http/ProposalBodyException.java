package io.actiongate.http;

/**
 * A refused {@code POST /v1/proposals} body: the reason code, the member at fault (or null), why, and where in the
 * body when that is known. Nothing of it is text of the body: members are the API's own names, positions numbers.
 */
final class ProposalBodyException extends Exception {

    private static final long serialVersionUID = 1L;

    private final ProposalRefusal reason;
    private final String member;
    private final transient String computedDigest;
    private final transient String offeredDigest;
    private final transient com.fasterxml.jackson.core.JsonLocation location;

    ProposalBodyException(ProposalRefusal reason, String member, String message) {
        this(reason, member, message, null, null);
    }

    /** At a position of the body (where the JSON failed, where an unknown member is). */
    ProposalBodyException(ProposalRefusal reason, String member, String message,
            com.fasterxml.jackson.core.JsonLocation location) {
        super(message);
        this.reason = reason;
        this.member = member;
        this.computedDigest = null;
        this.offeredDigest = null;
        this.location = location;
    }

    ProposalBodyException(ProposalRefusal reason, String member, String message, String computedDigest,
            String offeredDigest) {
        super(message);
        this.reason = reason;
        this.member = member;
        this.computedDigest = computedDigest;
        this.offeredDigest = offeredDigest;
        this.location = null;
    }

    /** Where in the body, when known. */
    com.fasterxml.jackson.core.JsonLocation location() {
        return location;
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
