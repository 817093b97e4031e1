package io.actiongate.storage;

import java.util.List;
import java.util.Objects;

/**
 * The verdict on an action's attachments: valid (with the bytes read, for a dispatch check), or the first failure
 * with the attachment's index and a redacted detail (object key and sizes, never bytes or URLs).
 */
public sealed interface Verification {

    static Verification valid(List<LoadedAttachment> loaded) {
        return new Valid(loaded);
    }

    static Verification failed(int index, AttachmentFailure failure, String detail) {
        return new Failed(index, failure, detail);
    }

    boolean ok();

    record Valid(List<LoadedAttachment> loaded) implements Verification {
        public Valid {
            loaded = List.copyOf(loaded);
        }

        @Override
        public boolean ok() {
            return true;
        }
    }

    record Failed(int index, AttachmentFailure failure, String detail) implements Verification {
        public Failed {
            Objects.requireNonNull(failure, "failure");
        }

        @Override
        public boolean ok() {
            return false;
        }

        /** True for an unreachable store: the caller may try again; never a verdict on the attachment. */
        public boolean retryable() {
            return failure.transientFailure();
        }

        /** {@code attachments[i]: failure: detail}, safe for receipts and logs. */
        public String reason() {
            return (index < 0 ? "attachments" : "attachments[" + index + "]") + ": "
                    + failure.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + detail;
        }
    }

    /** One verified attachment with its bytes; held in memory only. */
    record LoadedAttachment(AttachmentRef ref, byte[] bytes) {
        @Override
        public String toString() {
            return "LoadedAttachment[" + ref.objectKey() + ", " + bytes.length + " bytes]";
        }
    }
}
