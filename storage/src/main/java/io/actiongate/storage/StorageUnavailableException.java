package io.actiongate.storage;

/**
 * The object store could not be asked: connection refused, timeout, a 5xx or throttling. Transient: the caller
 * may try again later, and must never treat it as success or as a verdict on the attachment.
 */
public class StorageUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StorageUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
