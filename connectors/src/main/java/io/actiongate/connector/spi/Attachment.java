package io.actiongate.connector.spi;

/** An attachment reference as it travels with a reservation; the bytes stay in the object store. */
public record Attachment(String objectKey, String sha256, long sizeBytes, String contentType) {
}
