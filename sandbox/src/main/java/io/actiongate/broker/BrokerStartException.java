package io.actiongate.broker;

/** The embedded broker could not be formatted or started, or did not answer in time. */
public final class BrokerStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BrokerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
