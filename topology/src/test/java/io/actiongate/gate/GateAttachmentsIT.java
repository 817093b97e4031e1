package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.storage.AttachmentRef;
import io.actiongate.storage.AttachmentStager;
import io.actiongate.storage.AttachmentVerifier;
import io.actiongate.storage.BoundedAdmissionCheck;
import io.actiongate.storage.EmbeddedS3Server;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.S3AttachmentStore;

/**
 * Admission against a real S3-compatible server (S3Proxy on loopback): staged attachments are admitted and
 * travel with the reservation; a tampered, missing, foreign or unreachable object is refused with
 * ATTACHMENT_INVALID; the executor's definite pre-dispatch refusals settle the action with their reason.
 */
class GateAttachmentsIT {

    @TempDir
    static Path dir;

    private static EmbeddedS3Server server;
    private static ObjectStoreConfig config;
    private static S3AttachmentStore store;
    private static BoundedAdmissionCheck admission;

    @TempDir
    Path stateDir;
    private GateDriver gate;

    @BeforeAll
    static void startStore() throws Exception {
        server = EmbeddedS3Server.start(Files.createDirectories(dir.resolve("s3")));
        Map<String, String> settings = new HashMap<>(server.storageConfig("gate-it", dir.resolve("secrets")));
        settings.put(ObjectStoreConfig.CONTENT_TYPES_CONFIG, "text/plain,application/pdf");
        config = new ObjectStoreConfig(settings);
        store = S3AttachmentStore.create(config);
        store.init(1);
        admission = new BoundedAdmissionCheck(new AttachmentVerifier(store, config.keyPrefix()), config,
                Duration.ofSeconds(2), 2);
    }

    @AfterAll
    static void stopStore() {
        admission.close();
        store.close();
        server.close();
    }

    @AfterEach
    void closeGate() {
        if (gate != null) {
            gate.close();
        }
    }

    private GateDriver gate(BoundedAdmissionCheck check) {
        gate = GateDriver.withAttachments(stateDir, new StorageAttachmentCheck(check)).demoPolicy();
        return gate;
    }

    private static List<AttachmentRef> stage(String call, String... texts) {
        return new AttachmentStager(store).stage(GateDriver.TASK, call, java.util.Arrays.stream(texts)
                .map(t -> new AttachmentStager.StagedFile(t.getBytes(StandardCharsets.UTF_8), "text/plain"))
                .toList(), config.limits(GateDriver.PROVIDER, GateDriver.SEND));
    }

    private static ActionProposal.Builder withAttachments(String call, List<AttachmentRef> refs) {
        return GateDriver.proposal(call).setAttachments(refs.stream().map(AttachmentRef::toAvro).toList());
    }

    @Test
    void shouldAdmitVerifiedAttachmentsAndReserveThemAfterApproval() {
        gate(admission);
        List<AttachmentRef> refs = stage("att-1", "first file", "second file");
        ActionProposal p = gate.propose(withAttachments("att-1", refs));
        Receipt r1 = gate.lastReceipt();
        assertThat(r1.getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);

        gate.approve(p);
        AttemptReservation reservation = gate.attempts.readValue();
        assertThat(reservation.getAttachments()).extracting(a -> a.getObjectKey())
                .containsExactly(refs.get(0).objectKey(), refs.get(1).objectKey());
        assertThat(reservation.getToolSchemaHash()).isEqualTo(GateDriver.SCHEMA);
    }

    @Test
    void shouldRefuseAnObjectTamperedBeforeAdmission() {
        gate(admission);
        AttachmentRef staged = stage("att-2", "the approved text").get(0);
        // the proposal claims other content than what was staged (as if the object had been replaced)
        AttachmentRef claimed = new AttachmentRef(staged.objectKey(), "b".repeat(64), staged.sizeBytes(),
                staged.contentType(), staged.ownerInvocationId());
        gate.propose(withAttachments("att-2", List.of(claimed)));

        Receipt r2 = gate.lastReceipt();
        assertThat(r2.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r2.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(r2.getReason()).contains("hash mismatch");
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseBytesStagedWithForgedMetadataAtAdmission() throws Exception {
        gate(admission);
        AttachmentRef staged = stage("att-forged", "pay 100 EUR to account A").get(0);
        // the tool host replaces the bytes and copies every piece of metadata, sending no checksum of the store's
        server.overwrite("gate-it", staged.objectKey(), "pay 900 EUR to account B".getBytes(StandardCharsets.UTF_8),
                "text/plain", Map.of(S3AttachmentStore.META_OWNER, staged.ownerInvocationId(),
                        S3AttachmentStore.META_SHA256, staged.sha256()));
        gate.propose(withAttachments("att-forged", List.of(staged)));

        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).as("refused before any human sees it").isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(r.getReason()).contains("hash mismatch");
    }

    @Test
    void shouldRefuseMissingForeignAndDisallowedAttachments() {
        gate(admission);
        AttachmentRef staged = stage("att-3", "x").get(0);
        store.delete(staged.objectKey());
        gate.propose(withAttachments("att-3", List.of(staged)));
        Receipt r3 = gate.lastReceipt();
        assertThat(r3.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(r3.getReason()).contains("missing");

        AttachmentRef other = stage("att-4", "someone else's").get(0);
        gate.propose(withAttachments("att-5", List.of(new AttachmentRef(other.objectKey(), other.sha256(),
                other.sizeBytes(), other.contentType(), GateDriver.TASK + "/att-5"))));
        Receipt r4 = gate.lastReceipt();
        assertThat(r4.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(r4.getReason()).contains("foreign key");

        AttachmentRef exe = store.stage(GateDriver.TASK + "/att-6", "application/x-msdownload", new byte[] {1});
        gate.propose(withAttachments("att-6", List.of(exe)));
        Receipt r5 = gate.lastReceipt();
        assertThat(r5.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(r5.getReason()).contains("not allowed");
    }

    @Test
    void shouldRefuseWhenTheStoreIsUnreachableRatherThanAdmitUnverified() throws Exception {
        Map<String, String> settings = new HashMap<>(server.storageConfig("gate-it", dir.resolve("secrets")));
        int dead;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            dead = socket.getLocalPort();
        }
        settings.put(ObjectStoreConfig.ENDPOINT_CONFIG, "http://127.0.0.1:" + dead);
        ObjectStoreConfig deadConfig = new ObjectStoreConfig(settings);
        try (S3AttachmentStore deadStore = S3AttachmentStore.create(deadConfig, Duration.ofMillis(300));
             BoundedAdmissionCheck deadCheck = new BoundedAdmissionCheck(
                     new AttachmentVerifier(deadStore, deadConfig.keyPrefix()), deadConfig, Duration.ofMillis(800),
                     1)) {
            gate(deadCheck);
            List<AttachmentRef> refs = stage("att-7", "fine bytes");
            long started = System.nanoTime();
            gate.propose(withAttachments("att-7", refs));
            long tookMs = (System.nanoTime() - started) / 1_000_000;

            Receipt r6 = gate.lastReceipt();
            assertThat(r6.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
            assertThat(r6.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
            assertThat(r6.getReason()).contains("storage unavailable");
            assertThat(tookMs).as("the stream thread waits at most about the admission timeout").isLessThan(5_000);
        }
    }

    @Test
    void shouldSettleWithTheExecutorsReasonWhenAnAttachmentFailsBeforeDispatch() {
        gate(admission);
        ActionProposal p = gate.propose(withAttachments("att-8", stage("att-8", "bytes")));
        gate.approve(p);
        gate.attempts.readValue();
        gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED).setDispatched(false)
                .setErrorCode(ReasonCode.ATTACHMENT_INVALID.name()));

        Receipt r7 = gate.lastReceipt();
        assertThat(r7.getStatus()).isEqualTo(ReceiptStatus.FAILED);
        assertThat(r7.getReasonCode()).isEqualTo(ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(gate.attempts.isEmpty()).as("no further attempt").isTrue();
    }

    @Test
    void shouldNameTheKindOfTheExecutorsRefusalInTheReceiptWithoutItsDetail() {
        gate(admission);
        // the executor's error_detail, as AttachmentDispatchGuard writes it: the kind, then a detail naming the key
        Map<String, String> kinds = Map.of(
                "attachments[0]: hash mismatch: SHA-256 of object %s differs from the action's",
                "refused before dispatch: attachments[0]: hash mismatch",
                "attachments[0]: size mismatch: object larger than 5 bytes of %s",
                "refused before dispatch: attachments[0]: size mismatch",
                "attachments[0]: missing: no object %s",
                "refused before dispatch: attachments[0]: missing");
        int n = 0;
        for (Map.Entry<String, String> kind : kinds.entrySet()) {
            String call = "att-kind-" + n++;
            List<AttachmentRef> refs = stage(call, "bytes");
            ActionProposal p = gate.propose(withAttachments(call, refs));
            gate.approve(p);
            gate.attempts.readValue();
            gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED).setDispatched(false)
                    .setErrorCode(ReasonCode.ATTACHMENT_INVALID.name())
                    .setErrorDetail(kind.getKey().formatted(refs.get(0).objectKey())));

            Receipt r = gate.lastReceipt();
            assertThat(r.getStatus()).isEqualTo(ReceiptStatus.FAILED);
            assertThat(r.getReason()).isEqualTo(kind.getValue()).doesNotContain(refs.get(0).objectKey());
        }

        // free text that is not the guard's shape is not copied either
        List<AttachmentRef> refs = stage("att-kind-free", "bytes");
        ActionProposal p = gate.propose(withAttachments("att-kind-free", refs));
        gate.approve(p);
        gate.attempts.readValue();
        gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED).setDispatched(false)
                .setErrorCode(ReasonCode.ATTACHMENT_INVALID.name())
                .setErrorDetail("see https://store.example/x?X-Amz-Signature=abc"));
        assertThat(gate.lastReceipt().getReason()).isEqualTo("refused before dispatch: attachments not verified");
    }

    @Test
    void shouldSayTheStoreWasUnavailableWhenTheAttemptsRunOut() {
        gate(admission);
        List<AttachmentRef> refs = stage("att-outage", "bytes");
        ActionProposal p = gate.propose(withAttachments("att-outage", refs));
        gate.approve(p);
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertThat(gate.attempts.readValue().getAttempt()).isEqualTo(attempt);
            gate.report(gate.outcome(p, attempt, OutcomeStatus.NOT_DISPATCHED).setDispatched(false)
                    .setErrorCode("STORAGE_UNAVAILABLE")
                    .setErrorDetail("attachments[0]: storage unavailable: read " + refs.get(0).objectKey()
                            + " failed: ConnectException"));
            Receipt r = gate.lastReceipt();
            if (attempt < 3) {
                assertThat(r.getReason()).isEqualTo("attempt " + (attempt + 1) + " scheduled (attempt " + attempt
                        + " not dispatched: attachments[0]: storage unavailable)");
                gate.advance(Duration.ofMinutes(5));
            } else {
                assertThat(r.getStatus()).isEqualTo(ReceiptStatus.FAILED);
                assertThat(r.getReasonCode()).isEqualTo(ReasonCode.RETRIES_EXHAUSTED.name());
                assertThat(r.getReason()).isEqualTo("3 attempts used; attempt 3 not dispatched: "
                        + "attachments[0]: storage unavailable");
            }
        }
    }

    @Test
    void shouldStillRetryWhenTheStoreWasOnlyUnavailableAtDispatch() {
        gate(admission);
        ActionProposal p = gate.propose(withAttachments("att-9", stage("att-9", "bytes")));
        gate.approve(p);
        gate.attempts.readValue();
        gate.report(gate.outcome(p, 1, OutcomeStatus.NOT_DISPATCHED).setDispatched(false)
                .setErrorCode("STORAGE_UNAVAILABLE"));

        Receipt r8 = gate.lastReceipt();
        assertThat(r8.getStatus()).isNotIn(ReceiptStatus.FAILED, ReceiptStatus.SUCCEEDED);
        gate.advance(Duration.ofMinutes(5));
        assertThat(gate.attempts.readValue().getAttempt()).isEqualTo(2);
    }
}
