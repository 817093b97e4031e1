package io.actiongate.approver.oidc;

/** Sign-in failed; the message is safe to show and log (never a token or code). */
public final class OidcException extends Exception {

    private static final long serialVersionUID = 1L;

    public OidcException(String message) {
        super(message);
    }

    public OidcException(String message, Throwable cause) {
        super(message, cause);
    }
}
