package io.actiongate.storage;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

        private static final Pattern REASON = Pattern.compile("attachments(?:\\[(\\d{1,4})\\])?: ([a-z ]{1,40}): .*",
                Pattern.DOTALL);

        /** {@code attachments[i]: failure: detail}, safe for receipts and logs. */
        public String reason() {
            return kind() + ": " + detail;
        }

        /**
         * {@code attachments[i]: failure} without the detail: which attachment and what kind of failure, from a
         * closed list (the detail may name an object key; the kind never does).
         */
        public String kind() {
            return (index < 0 ? "attachments" : "attachments[" + index + "]") + ": "
                    + failure.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }

        /**
         * The index and kind named by a {@link #reason()} read back (e.g. from an outcome's {@code error_detail});
         * empty when {@code reason} is not one. The result's detail is empty: only the kind is believed.
         */
        public static Optional<Failed> kindOf(String reason) {
            if (reason == null) {
                return Optional.empty();
            }
            Matcher m = REASON.matcher(reason);
            if (!m.matches()) {
                return Optional.empty();
            }
            try {
                AttachmentFailure failure = AttachmentFailure.valueOf(m.group(2).toUpperCase(Locale.ROOT)
                        .replace(' ', '_'));
                return Optional.of(new Failed(m.group(1) == null ? -1 : Integer.parseInt(m.group(1)), failure, ""));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
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
