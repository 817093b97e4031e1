package io.actiongate.client;

/**
 * The gate already holds another action under this key (another tool or another input digest): it published an
 * {@code IdentityConflict} on {@code conflicts} and nothing else changed. Reuse of a tool call id for a different
 * call is a tool host bug; the offered proposal never acts.
 */
public final class IdentityConflictException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String actionKey;
    private final String existingDigest;
    private final String offeredDigest;

    public IdentityConflictException(String actionKey, String existingDigest, String offeredDigest,
            String existingTool, String offeredTool) {
        super("action " + actionKey + " already holds tool " + existingTool + " with input " + existingDigest
                + "; the offered " + offeredTool + " with input " + offeredDigest + " was not accepted");
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
