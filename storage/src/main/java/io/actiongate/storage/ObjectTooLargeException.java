package io.actiongate.storage;

/** An object is larger than the caller's bound; nothing beyond the bound was kept in memory. */
public class ObjectTooLargeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ObjectTooLargeException(String message) {
        super(message);
    }
}
