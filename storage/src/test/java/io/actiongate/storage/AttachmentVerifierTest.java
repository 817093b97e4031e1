package io.actiongate.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class AttachmentVerifierTest {

    private final InMemoryAttachmentStore store = new InMemoryAttachmentStore();
    private final AttachmentVerifier verifier = new AttachmentVerifier(store, "attachments/");
    private final AttachmentLimits limits = new AttachmentLimits(10, 15, 2, List.of("text/plain"));

    private static AttachmentFailure failure(Verification v) {
        assertThat(v).isInstanceOf(Verification.Failed.class);
        return ((Verification.Failed) v).failure();
    }

    @Test
    void shouldPassAMatchingAttachment() {
        AttachmentRef ref = store.stage("t/c", "text/plain", new byte[] {1, 2});
        assertThat(verifier.verifyStored(List.of(ref), "t/c", limits).ok()).isTrue();
        assertThat(verifier.verifyAndLoad(List.of(ref), "t/c", limits).ok()).isTrue();
    }

    @Test
    void shouldRefuseOverLimitsAndDisallowedTypesBeforeAskingTheStore() {
        store.unavailable = true;
        AttachmentRef big = new AttachmentRef("attachments/t/c/1", "0".repeat(64), 11, "text/plain", "t/c");
        AttachmentRef pdf = new AttachmentRef("attachments/t/c/2", "0".repeat(64), 1, "application/pdf", "t/c");
        AttachmentRef eight = new AttachmentRef("attachments/t/c/3", "0".repeat(64), 8, "text/plain", "t/c");
        assertThat(failure(verifier.verifyStored(List.of(big), "t/c", limits))).isEqualTo(AttachmentFailure.TOO_LARGE);
        assertThat(failure(verifier.verifyStored(List.of(eight, eight), "t/c", limits)))
                .isEqualTo(AttachmentFailure.TOO_LARGE);
        assertThat(failure(verifier.verifyStored(List.of(eight, eight, eight), "t/c", limits)))
                .isEqualTo(AttachmentFailure.TOO_LARGE);
        assertThat(failure(verifier.verifyStored(List.of(pdf), "t/c", limits)))
                .isEqualTo(AttachmentFailure.CONTENT_TYPE_NOT_ALLOWED);
    }

    @Test
    void shouldRefuseKeysAndOwnersOfAnotherInvocation() {
        AttachmentRef ref = store.stage("t/other", "text/plain", new byte[] {1});
        AttachmentRef claimed = new AttachmentRef(ref.objectKey(), ref.sha256(), 1, "text/plain", "t/c");
        assertThat(failure(verifier.verifyStored(List.of(claimed), "t/c", limits)))
                .isEqualTo(AttachmentFailure.FOREIGN_KEY);
        assertThat(failure(verifier.verifyStored(List.of(ref), "t/c", limits)))
                .isEqualTo(AttachmentFailure.FOREIGN_KEY);
        AttachmentRef nested = new AttachmentRef("attachments/t/c/x/../y", ref.sha256(), 1, "text/plain", "t/c");
        assertThat(failure(verifier.verifyStored(List.of(nested), "t/c", limits)))
                .isEqualTo(AttachmentFailure.FOREIGN_KEY);
    }

    @Test
    void shouldReportAnOutageAsRetryableNeverAsValid() {
        AttachmentRef ref = store.stage("t/c", "text/plain", new byte[] {1});
        store.unavailable = true;
        Verification v = verifier.verifyAndLoad(List.of(ref), "t/c", limits);
        assertThat(failure(v)).isEqualTo(AttachmentFailure.STORAGE_UNAVAILABLE);
        assertThat(((Verification.Failed) v).retryable()).isTrue();
    }

    @Test
    void shouldNameTheAttachmentButNeverItsBytesInTheReason() {
        AttachmentRef ref = store.stage("t/c", "text/plain", "secret-ish".getBytes());
        AttachmentRef wrongHash = new AttachmentRef(ref.objectKey(), "f".repeat(64), ref.sizeBytes(), "text/plain",
                "t/c");
        Verification.Failed f = (Verification.Failed) verifier.verifyAndLoad(List.of(wrongHash), "t/c",
                new AttachmentLimits(100, 100, 2, List.of("text/plain")));
        assertThat(f.failure()).isEqualTo(AttachmentFailure.HASH_MISMATCH);
        assertThat(f.reason()).startsWith("attachments[0]: hash mismatch").doesNotContain("secret-ish");
    }

    @Test
    void shouldReadBackTheKindOfEveryFailureFromItsReasonButNotItsDetail() {
        for (AttachmentFailure f : AttachmentFailure.values()) {
            for (int index : new int[] {-1, 0, 7}) {
                Verification.Failed failed = new Verification.Failed(index, f, "object attachments/t/c/ab: x: y");
                Verification.Failed read = Verification.Failed.kindOf(failed.reason()).orElseThrow();
                assertThat(read.failure()).isEqualTo(f);
                assertThat(read.index()).isEqualTo(index);
                assertThat(read.kind()).isEqualTo(failed.kind()).doesNotContain("attachments/t/c/ab");
            }
        }
        assertThat(Verification.Failed.kindOf("attachments[0]: made up: x")).isEmpty();
        assertThat(Verification.Failed.kindOf("https://store.example/x?X-Amz-Signature=1")).isEmpty();
        assertThat(Verification.Failed.kindOf(null)).isEmpty();
    }

    @Test
    void shouldHashTheBytesAtAdmissionWhenTheStoreKeepsNoChecksumOfItsOwn() {
        AttachmentRef ref = store.stage("t/c", "text/plain", "pay 1 to A".getBytes());
        // same size, same type, the metadata's SHA-256 still the approved one: only the bytes tell
        store.replaceKeepingMetadata(ref.objectKey(), "pay 9 to B".getBytes());
        int before = store.reads.get();

        assertThat(failure(verifier.verifyStored(List.of(ref), "t/c", limits)))
                .isEqualTo(AttachmentFailure.HASH_MISMATCH);
        assertThat(store.reads.get()).as("the bytes were read").isEqualTo(before + 1);
    }

    @Test
    void shouldTakeTheStoresOwnChecksumAtAdmissionWithoutReadingTheBytes() {
        store.storeChecksums = true;
        AttachmentRef ref = store.stage("t/c", "text/plain", "pay 1 to A".getBytes());
        assertThat(verifier.verifyStored(List.of(ref), "t/c", limits).ok()).isTrue();
        assertThat(store.reads.get()).isZero();

        store.replaceKeepingMetadata(ref.objectKey(), "pay 9 to B".getBytes());
        assertThat(failure(verifier.verifyStored(List.of(ref), "t/c", limits)))
                .isEqualTo(AttachmentFailure.HASH_MISMATCH);
        assertThat(store.reads.get()).isZero();
    }

    @Test
    void shouldAlwaysHashTheBytesWhenTheStoresChecksumIsNotTrusted() {
        store.storeChecksums = true;
        AttachmentVerifier reading = new AttachmentVerifier(store, "attachments/", false);
        AttachmentRef ref = store.stage("t/c", "text/plain", "pay 1 to A".getBytes());
        assertThat(reading.verifyStored(List.of(ref), "t/c", limits).ok()).isTrue();
        assertThat(store.reads.get()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAtAdmissionAnObjectLargerThanDeclaredWithoutReadingItAll() {
        AttachmentRef ref = store.stage("t/c", "text/plain", "12345".getBytes());
        AttachmentRef smaller = new AttachmentRef(ref.objectKey(), ref.sha256(), 4, "text/plain", "t/c");
        assertThat(failure(verifier.verifyStored(List.of(smaller), "t/c", limits)))
                .isEqualTo(AttachmentFailure.SIZE_MISMATCH);
    }
}
