package io.actiongate.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A store in memory for unit tests; {@link #unavailable} makes every call fail as an outage would. */
final class InMemoryAttachmentStore implements AttachmentStore {

    private final Map<String, StoredBytes> objects = new ConcurrentHashMap<>();
    private final AtomicInteger counter = new AtomicInteger();
    volatile boolean unavailable;

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
        objects.put(key, new StoredBytes(new StoredObject(key, owner, bytes.length, contentType, sha), bytes));
        return new AttachmentRef(key, sha, bytes.length, contentType, owner);
    }

    @Override
    public Optional<StoredObject> describe(String objectKey) {
        check();
        return Optional.ofNullable(objects.get(objectKey)).map(StoredBytes::meta);
    }

    @Override
    public Optional<ObjectContent> read(String objectKey, long maxBytes) {
        check();
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
