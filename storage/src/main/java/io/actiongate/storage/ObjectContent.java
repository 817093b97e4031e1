package io.actiongate.storage;

/**
 * The bytes of one object as read, with the SHA-256 computed over exactly those bytes while reading, and the
 * metadata the store returned with them. Lives only in memory; {@link #toString()} never shows the bytes.
 */
public record ObjectContent(StoredObject stored, byte[] bytes, String computedSha256) {

    @Override
    public String toString() {
        return "ObjectContent[" + stored.objectKey() + ", " + bytes.length + " bytes]";
    }
}
