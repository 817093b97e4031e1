package io.actiongate.topics.admin;

/** Topics could not be listed, described or created (unreachable cluster, not authorized, invalid settings). */
public final class TopicsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TopicsException(String message, Throwable cause) {
        super(message, cause);
    }
}
