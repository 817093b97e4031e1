package io.actiongate.client;

/**
 * The gate already holds another action under this key (another org, principal, profile, tool or input: another
 * frozen action): it published an {@code IdentityConflict} on {@code conflicts} and nothing else changed. The two
 * digests are action digests. Reuse of a tool call id for a different
 * call is a tool host bug; the offered proposal never acts.
 */
public final class IdentityConflictException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String actionKey;
    private final String existingDigest;
    private final String offeredDigest;

    public IdentityConflictException(String actionKey, String existingDigest, String offeredDigest,
            String existingTool, String offeredTool) {
        super("action " + actionKey + " already holds tool " + existingTool + " as action " + existingDigest
                + "; the offered " + offeredTool + " as action " + offeredDigest + " was not accepted");
        this.actionKey = actionKey;
        this.existingDigest = existingDigest;
        this.offeredDigest = offeredDigest;
    }

    public String actionKey() {
        return actionKey;
    }

    public String existingDigest() {
        return existingDigest;
    }

    public String offeredDigest() {
        return offeredDigest;
    }
}
