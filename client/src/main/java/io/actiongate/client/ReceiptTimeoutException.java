package io.actiongate.client;

import java.time.Duration;

/** No receipt of the awaited kind arrived in time; the action may still progress, ask again later. */
public final class ReceiptTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ActionReceipt latest;

    public ReceiptTimeoutException(String actionKey, Until until, Duration timeout, ActionReceipt latest) {
        super("no " + switch (until) {
            case TERMINAL -> "terminal";
            case WAITING_APPROVAL -> "WAITING_APPROVAL or terminal";
            case ANY -> "any";
            case DECIDED -> "decided (not WAITING_APPROVAL)";
        } + " receipt for "
                + actionKey + " within " + timeout + (latest == null ? "" : "; latest " + latest.state()));
        this.latest = latest;
    }

    /** The latest receipt seen before the timeout, or null. */
    public ActionReceipt latest() {
        return latest;
    }
}
