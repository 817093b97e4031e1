package io.actiongate.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A value that could not be decoded. Carries a typed {@link Reason} for the dead-letter path; the message
 * never contains the payload.
 */
public class AvroDecodeException extends SerializationException {

    private static final long serialVersionUID = 1L;

    /** Why decoding failed. */
    public enum Reason {
        /** The bytes do not start with the single-object marker {@code C3 01}. */
        BAD_MARKER,
        /** The marker is there, but no released schema of the expected record has that fingerprint. */
        UNKNOWN_FINGERPRINT,
        /** The payload ends before the record does. */
        TRUNCATED,
        /** The bytes do not decode as the writer schema says (bad lengths, bad union index, ...). */
        MALFORMED
    }

    private final Reason reason;

    public AvroDecodeException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
