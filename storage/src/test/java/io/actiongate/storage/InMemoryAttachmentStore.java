package io.actiongate.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store in memory for unit tests; {@link #unavailable} makes every call fail as an outage would,
 * {@link #storeChecksums} makes it keep its own SHA-256 of what it received (as S3 additional checksums do).
 */
final class InMemoryAttachmentStore implements AttachmentStore {

    private final Map<String, StoredBytes> objects = new ConcurrentHashMap<>();
    private final AtomicInteger counter = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger();
    volatile boolean unavailable;
    volatile boolean storeChecksums;

    private record StoredBytes(StoredObject meta, byte[] bytes) {
    }

    private void check() {
        if (unavailable) {
            throw new StorageUnavailableException("store down (test)", null);
        }
    }

    @Override
    public AttachmentRef stage(String owner, String contentType, byte[] bytes) {
        check();
        String key = Invocations.keyPrefix("attachments/", owner) + counter.incrementAndGet();
        String sha = S3AttachmentStore.Sha256.hex(bytes);
        objects.put(key, new StoredBytes(new StoredObject(key, owner, bytes.length, contentType, sha,
                storeChecksums ? sha : null), bytes));
        return new AttachmentRef(key, sha, bytes.length, contentType, owner);
    }

    /**
     * Replaces an object's bytes as its uploader could, keeping the user metadata it had (owner, SHA-256): the
     * metadata then lies. The store's own checksum, where it keeps one, is of the new bytes.
     */
    void replaceKeepingMetadata(String key, byte[] bytes) {
        StoredObject old = objects.get(key).meta();
        objects.put(key, new StoredBytes(new StoredObject(key, old.ownerInvocationId(), bytes.length,
                old.contentType(), old.sha256(), storeChecksums ? S3AttachmentStore.Sha256.hex(bytes) : null), bytes));
    }

    @Override
    public Optional<StoredObject> describe(String objectKey) {
        check();
        return Optional.ofNullable(objects.get(objectKey)).map(StoredBytes::meta);
    }

    @Override
    public Optional<ObjectContent> read(String objectKey, long maxBytes) {
        check();
        reads.incrementAndGet();
        return Optional.ofNullable(objects.get(objectKey)).map(o -> {
            if (o.bytes().length > maxBytes) {
                throw new ObjectTooLargeException("too large");
            }
            return new ObjectContent(o.meta(), o.bytes(), S3AttachmentStore.Sha256.hex(o.bytes()));
        });
    }

    @Override
    public void delete(String objectKey) {
        check();
        objects.remove(objectKey);
    }

    @Override
    public int deleteOwnedBy(String owner) {
        check();
        String prefix = Invocations.keyPrefix("attachments/", owner);
        List<String> keys = new ArrayList<>(objects.keySet().stream().filter(k -> k.startsWith(prefix)).toList());
        keys.forEach(objects::remove);
        return keys.size();
    }

    @Override
    public InitResult init(int expiryDays) {
        return new InitResult(false, false, "in memory");
    }

    int size() {
        return objects.size();
    }

    @Override
    public void close() {
    }
}
