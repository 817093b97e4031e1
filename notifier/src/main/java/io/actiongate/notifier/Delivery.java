package io.actiongate.notifier;

import java.util.Locale;

/** What became of one message of a notice. */
public enum Delivery {
    /** The destination accepted it (a 2xx; SMTP's 250 after the message). */
    DELIVERED,
    /** The destination answered that it will not take it (a 4xx; SMTP refused it), or the connector refused it. */
    REFUSED,
    /** It may have arrived: an error after the message left (a 5xx, a timeout, a reset). Never sent again. */
    UNKNOWN,
    /** Nothing left: the connection never came up (tried again a few times within the same claim). */
    NOT_SENT;

    /** The label in metrics and logs. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
