package io.actiongate.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Verifies an action's attachments against the store, twice in an action's life:
 * <ul>
 *   <li>{@link #verifyStored}: at admission (HEAD): the object exists, belongs to the action's invocation, its
 *       size and content type equal the action's, and so does its SHA-256, taken from evidence the uploader cannot
 *       forge: the store's own checksum ({@link StoredObject#storeSha256()}) where the store keeps one, else the
 *       hash of the bytes read (bounded like the executor's read). The user metadata's SHA-256 is never believed;</li>
 *   <li>{@link #verifyAndLoad}: right before dispatch, on the bytes actually read: the same checks, with size and
 *       SHA-256 computed over what was read, so an object replaced after approval is caught.</li>
 * </ul>
 * Both also apply the tool's limits (count, per file, per action, content-type allow-list). The first failure
 * wins; an unreachable store is {@link AttachmentFailure#STORAGE_UNAVAILABLE}, never a pass.
 */
public final class AttachmentVerifier {

    private final AttachmentStore store;
    private final String keyPrefix;
    private final boolean trustStoreChecksum;

    /** A verifier that believes the store's own checksum at admission where there is one. */
    public AttachmentVerifier(AttachmentStore store, String keyPrefix) {
        this(store, keyPrefix, true);
    }

    /**
     * @param trustStoreChecksum false: admission always reads and hashes the bytes
     *                           ({@link ObjectStoreConfig#admissionTrustsStoreChecksum()})
     */
    public AttachmentVerifier(AttachmentStore store, String keyPrefix, boolean trustStoreChecksum) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.trustStoreChecksum = trustStoreChecksum;
    }

    /** Limits and ownership only; no call to the store. */
    public Optional<Verification.Failed> checkDeclared(List<AttachmentRef> refs, String invocationId,
                                                       AttachmentLimits limits) {
        if (refs.size() > limits.maxAttachments()) {
            return Optional.of(new Verification.Failed(-1, AttachmentFailure.TOO_LARGE,
                    refs.size() + " attachments, at most " + limits.maxAttachments()));
        }
        String prefix = Invocations.keyPrefix(keyPrefix, invocationId);
        long total = 0;
        for (int i = 0; i < refs.size(); i++) {
            AttachmentRef ref = refs.get(i);
            if (!ref.ownerInvocationId().equals(invocationId) || !ref.objectKey().startsWith(prefix)
                    || ref.objectKey().length() == prefix.length() || ref.objectKey().indexOf('/', prefix.length()) >= 0) {
                return failed(i, AttachmentFailure.FOREIGN_KEY, "not staged by this action's invocation");
            }
            if (ref.sizeBytes() > limits.maxFileBytes()) {
                return failed(i, AttachmentFailure.TOO_LARGE, ref.sizeBytes() + " bytes, at most "
                        + limits.maxFileBytes());
            }
            total += ref.sizeBytes();
            if (!limits.allows(ref.contentType())) {
                return failed(i, AttachmentFailure.CONTENT_TYPE_NOT_ALLOWED, "content type "
                        + ContentTypes.mediaType(ref.contentType()) + " not allowed for this tool");
            }
        }
        if (total > limits.maxActionBytes()) {
            return Optional.of(new Verification.Failed(-1, AttachmentFailure.TOO_LARGE, total
                    + " bytes in all, at most " + limits.maxActionBytes()));
        }
        return Optional.empty();
    }

    /**
     * Admission: declared checks, then one HEAD per attachment, and a bounded read of the bytes of each object the
     * store keeps no checksum for.
     */
    public Verification verifyStored(List<AttachmentRef> refs, String invocationId, AttachmentLimits limits) {
        Optional<Verification.Failed> declared = checkDeclared(refs, invocationId, limits);
        if (declared.isPresent()) {
            return declared.get();
        }
        for (int i = 0; i < refs.size(); i++) {
            AttachmentRef ref = refs.get(i);
            Optional<StoredObject> stored;
            try {
                stored = store.describe(ref.objectKey());
            } catch (StorageUnavailableException e) {
                return Verification.failed(i, AttachmentFailure.STORAGE_UNAVAILABLE, e.getMessage());
            } catch (RuntimeException e) {
                return Verification.failed(i, AttachmentFailure.STORAGE_UNAVAILABLE,
                        "object store refused the check (" + e.getClass().getSimpleName() + ")");
            }
            if (stored.isEmpty()) {
                return Verification.failed(i, AttachmentFailure.MISSING, "no object " + ref.objectKey());
            }
            Optional<Verification.Failed> mismatch = compareMetadata(i, ref, invocationId, stored.get());
            if (mismatch.isEmpty()) {
                String evidence = trustStoreChecksum ? stored.get().storeSha256() : null;
                if (evidence != null) {
                    mismatch = compareHash(i, ref, evidence);
                } else {
                    // no checksum the store verified: the metadata's SHA-256 is the uploader's word, so hash the bytes
                    Verification read = verifyAndLoad(List.of(ref), invocationId, limits);
                    if (read instanceof Verification.Failed f) {
                        return new Verification.Failed(i, f.failure(), f.detail());
                    }
                }
            }
            if (mismatch.isPresent()) {
                return mismatch.get();
            }
        }
        return Verification.valid(List.of());
    }

    /** Dispatch: declared checks, then each object read whole with its SHA-256 computed while reading. */
    public Verification verifyAndLoad(List<AttachmentRef> refs, String invocationId, AttachmentLimits limits) {
        Optional<Verification.Failed> declared = checkDeclared(refs, invocationId, limits);
        if (declared.isPresent()) {
            return declared.get();
        }
        List<Verification.LoadedAttachment> loaded = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
            AttachmentRef ref = refs.get(i);
            Optional<ObjectContent> content;
            try {
                // one byte more than declared is enough to tell "larger" without reading a huge replacement
                content = store.read(ref.objectKey(), Math.min(ref.sizeBytes() + 1, limits.maxFileBytes() + 1));
            } catch (ObjectTooLargeException e) {
                return Verification.failed(i, AttachmentFailure.SIZE_MISMATCH, "object larger than "
                        + ref.sizeBytes() + " bytes");
            } catch (StorageUnavailableException e) {
                return Verification.failed(i, AttachmentFailure.STORAGE_UNAVAILABLE, e.getMessage());
            } catch (RuntimeException e) {
                return Verification.failed(i, AttachmentFailure.STORAGE_UNAVAILABLE,
                        "object store refused the read (" + e.getClass().getSimpleName() + ")");
            }
            if (content.isEmpty()) {
                return Verification.failed(i, AttachmentFailure.MISSING, "no object " + ref.objectKey());
            }
            ObjectContent c = content.get();
            StoredObject read = new StoredObject(ref.objectKey(), c.stored().ownerInvocationId(), c.bytes().length,
                    c.stored().contentType(), c.stored().sha256(), null);
            Optional<Verification.Failed> mismatch = compare(i, ref, invocationId, read, c.computedSha256());
            if (mismatch.isPresent()) {
                return mismatch.get();
            }
            loaded.add(new Verification.LoadedAttachment(ref, c.bytes()));
        }
        return Verification.valid(loaded);
    }

    private static Optional<Verification.Failed> compare(int i, AttachmentRef ref, String invocationId,
                                                         StoredObject stored, String sha256) {
        Optional<Verification.Failed> metadata = compareMetadata(i, ref, invocationId, stored);
        return metadata.isPresent() ? metadata : compareHash(i, ref, sha256);
    }

    private static Optional<Verification.Failed> compareMetadata(int i, AttachmentRef ref, String invocationId,
                                                                 StoredObject stored) {
        if (!invocationId.equals(stored.ownerInvocationId())) {
            return failed(i, AttachmentFailure.WRONG_OWNER, "object " + ref.objectKey()
                    + " is not recorded as owned by this action's invocation");
        }
        if (stored.sizeBytes() != ref.sizeBytes()) {
            return failed(i, AttachmentFailure.SIZE_MISMATCH, "object holds " + stored.sizeBytes()
                    + " bytes, the action says " + ref.sizeBytes());
        }
        if (!ContentTypes.normalize(stored.contentType()).equals(ContentTypes.normalize(ref.contentType()))) {
            return failed(i, AttachmentFailure.CONTENT_TYPE_MISMATCH, "stored content type differs");
        }
        return Optional.empty();
    }

    private static Optional<Verification.Failed> compareHash(int i, AttachmentRef ref, String sha256) {
        if (!ref.sha256().equals(sha256)) {
            return failed(i, AttachmentFailure.HASH_MISMATCH, "SHA-256 of object " + ref.objectKey()
                    + " differs from the action's");
        }
        return Optional.empty();
    }

    private static Optional<Verification.Failed> failed(int index, AttachmentFailure failure, String detail) {
        return Optional.of(new Verification.Failed(index, failure, detail));
    }
}
