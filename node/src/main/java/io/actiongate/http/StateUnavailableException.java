package io.actiongate.http;

/** The state store cannot answer right now, e.g. during a rebalance. Maps to HTTP 503. */
public class StateUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StateUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
