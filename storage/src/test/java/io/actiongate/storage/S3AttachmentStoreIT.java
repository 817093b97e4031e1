package io.actiongate.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import io.actiongate.secrets.SecretReference;

/** The S3 store against a real S3-compatible server (S3Proxy, filesystem backend) on loopback. */
class S3AttachmentStoreIT {

    private static final String OWNER = "task-1/call-1";
    private static final AttachmentLimits LIMITS =
            new AttachmentLimits(1024 * 1024, 4 * 1024 * 1024, 4, List.of("text/plain", "application/pdf"));

    @TempDir
    static Path dir;

    private static EmbeddedS3Server server;
    private static ObjectStoreConfig config;
    private static S3AttachmentStore store;

    @BeforeAll
    static void start() throws Exception {
        server = EmbeddedS3Server.start(Files.createDirectories(dir.resolve("s3")));
        config = new ObjectStoreConfig(server.storageConfig("it-bucket", dir.resolve("secrets")));
        store = S3AttachmentStore.create(config);
        AttachmentStore.InitResult init = store.init(config.stagedExpiryDays());
        assertThat(init.bucketCreated()).isTrue();
    }

    @AfterAll
    static void stop() throws Exception {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldStageDescribeReadAndDelete() {
        byte[] content = bytes("quarterly report, page 1");
        AttachmentRef ref = store.stage(OWNER, "text/plain", content);

        assertThat(ref.objectKey()).startsWith("attachments/task-1/call-1/");
        assertThat(ref.sha256()).isEqualTo(S3AttachmentStore.Sha256.hex(content));
        assertThat(ref.sizeBytes()).isEqualTo(content.length);
        assertThat(ref.ownerInvocationId()).isEqualTo(OWNER);

        StoredObject stored = store.describe(ref.objectKey()).orElseThrow();
        assertThat(stored.ownerInvocationId()).isEqualTo(OWNER);
        assertThat(stored.sizeBytes()).isEqualTo(content.length);
        assertThat(stored.contentType()).isEqualTo("text/plain");
        assertThat(stored.sha256()).isEqualTo(ref.sha256());

        ObjectContent read = store.read(ref.objectKey(), 1024).orElseThrow();
        assertThat(read.bytes()).isEqualTo(content);
        assertThat(read.computedSha256()).isEqualTo(ref.sha256());

        store.delete(ref.objectKey());
        assertThat(store.describe(ref.objectKey())).isEmpty();
        assertThat(store.read(ref.objectKey(), 1024)).isEmpty();
        store.delete(ref.objectKey()); // idempotent
    }

    @Test
    void shouldStopReadingAtTheBound() {
        AttachmentRef ref = store.stage(OWNER, "text/plain", new byte[4096]);
        assertThatThrownBy(() -> store.read(ref.objectKey(), 100)).isInstanceOf(ObjectTooLargeException.class);
        store.delete(ref.objectKey());
    }

    @Test
    void shouldDeleteEverythingAnInvocationStagedAndNothingElse() {
        store.stage("task-2/call-a", "text/plain", bytes("a1"));
        store.stage("task-2/call-a", "text/plain", bytes("a2"));
        AttachmentRef other = store.stage("task-2/call-b", "text/plain", bytes("b"));

        assertThat(store.deleteOwnedBy("task-2/call-a")).isEqualTo(2);
        assertThat(store.deleteOwnedBy("task-2/call-a")).isZero();
        assertThat(store.describe(other.objectKey())).isPresent();
        store.delete(other.objectKey());
    }

    @Test
    void shouldVerifyAStagedActionAtAdmissionAndDispatch() {
        AttachmentStager stager = new AttachmentStager(store);
        List<AttachmentRef> refs = stager.stage("task-3", "call-1", List.of(
                new AttachmentStager.StagedFile(bytes("first"), "text/plain"),
                new AttachmentStager.StagedFile(bytes("%PDF-1.7 second"), "application/pdf")), LIMITS);
        AttachmentVerifier verifier = new AttachmentVerifier(store, config.keyPrefix());

        assertThat(verifier.verifyStored(refs, "task-3/call-1", LIMITS).ok()).isTrue();
        Verification loaded = verifier.verifyAndLoad(refs, "task-3/call-1", LIMITS);
        assertThat(loaded).isInstanceOf(Verification.Valid.class);
        assertThat(((Verification.Valid) loaded).loaded()).extracting(l -> new String(l.bytes(),
                StandardCharsets.UTF_8)).containsExactly("first", "%PDF-1.7 second");

        // another action may not use these objects
        Verification foreign = verifier.verifyStored(refs.stream().map(r -> new AttachmentRef(r.objectKey(),
                r.sha256(), r.sizeBytes(), r.contentType(), "task-3/call-2")).toList(), "task-3/call-2", LIMITS);
        assertThat(failure(foreign)).isEqualTo(AttachmentFailure.FOREIGN_KEY);
        store.deleteOwnedBy("task-3/call-1");
        assertThat(failure(verifier.verifyStored(refs, "task-3/call-1", LIMITS))).isEqualTo(AttachmentFailure.MISSING);
    }

    @Test
    void shouldDetectAnObjectTamperedBeforeAdmission() {
        AttachmentRef ref = store.stage("task-4/call-1", "text/plain", bytes("the approved text"));
        // same size, other bytes, the recorded metadata left as it was: only the hash can tell
        overwrite(ref, bytes("the altered! text"), "text/plain", Map.of(S3AttachmentStore.META_OWNER,
                "task-4/call-1", S3AttachmentStore.META_SHA256, S3AttachmentStore.Sha256.hex(bytes("x"))));
        AttachmentVerifier verifier = new AttachmentVerifier(store, config.keyPrefix());
        assertThat(failure(verifier.verifyStored(List.of(ref), "task-4/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.HASH_MISMATCH);
        store.deleteOwnedBy("task-4/call-1");
    }

    @Test
    void shouldDetectAnObjectSwappedAfterStagingOnReadEvenWithForgedMetadata() {
        AttachmentRef ref = store.stage("task-5/call-1", "text/plain", bytes("the approved text"));
        AttachmentVerifier verifier = new AttachmentVerifier(store, config.keyPrefix());
        assertThat(verifier.verifyStored(List.of(ref), "task-5/call-1", LIMITS).ok()).isTrue();

        // the swap copies every piece of metadata: the metadata cannot tell, the bytes read can; with no checksum
        // of the store's own, admission reads them too
        overwrite(ref, bytes("the altered! text"), "text/plain", Map.of(S3AttachmentStore.META_OWNER,
                "task-5/call-1", S3AttachmentStore.META_SHA256, ref.sha256()));
        assertThat(store.describe(ref.objectKey()).orElseThrow().sha256()).as("the metadata lies")
                .isEqualTo(ref.sha256());
        assertThat(failure(verifier.verifyStored(List.of(ref), "task-5/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.HASH_MISMATCH);
        assertThat(failure(verifier.verifyAndLoad(List.of(ref), "task-5/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.HASH_MISMATCH);

        overwrite(ref, bytes("the approved text, and more"), "text/plain", Map.of(S3AttachmentStore.META_OWNER,
                "task-5/call-1", S3AttachmentStore.META_SHA256, ref.sha256()));
        assertThat(failure(verifier.verifyAndLoad(List.of(ref), "task-5/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.SIZE_MISMATCH);

        overwrite(ref, bytes("the approved text"), "text/plain", Map.of(S3AttachmentStore.META_OWNER,
                "task-9/call-9", S3AttachmentStore.META_SHA256, ref.sha256()));
        assertThat(failure(verifier.verifyAndLoad(List.of(ref), "task-5/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.WRONG_OWNER);

        overwrite(ref, bytes("the approved text"), "application/pdf", Map.of(S3AttachmentStore.META_OWNER,
                "task-5/call-1", S3AttachmentStore.META_SHA256, ref.sha256()));
        assertThat(failure(verifier.verifyAndLoad(List.of(ref), "task-5/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.CONTENT_TYPE_MISMATCH);
        store.deleteOwnedBy("task-5/call-1");
    }

    @Test
    void shouldKeepTheStoresOwnChecksumOfEveryStagedObject() {
        AttachmentRef ref = store.stage("task-7/call-1", "text/plain", bytes("checksummed by the store"));

        StoredObject stored = store.describe(ref.objectKey()).orElseThrow();
        assertThat(stored.storeSha256()).isEqualTo(ref.sha256());
        store.deleteOwnedBy("task-7/call-1");
    }

    @Test
    void shouldRefuseAnUploadWhoseChecksumIsNotOfItsBytes() {
        // S3Proxy verifies x-amz-checksum-sha256 against the body, as S3 does: nobody can store a forged checksum
        AttachmentRef ref = store.stage("task-8/call-1", "text/plain", bytes("the approved text"));
        assertThatThrownBy(() -> overwrite(ref, bytes("the altered! text"), "text/plain", Map.of(
                S3AttachmentStore.META_OWNER, "task-8/call-1", S3AttachmentStore.META_SHA256, ref.sha256()),
                ref.sha256())).isInstanceOf(software.amazon.awssdk.services.s3.model.S3Exception.class);
        assertThat(store.read(ref.objectKey(), 1024).orElseThrow().bytes()).isEqualTo(bytes("the approved text"));

        // the other bytes with their own, true checksum: stored, and admission sees they are not the action's
        overwrite(ref, bytes("the altered! text"), "text/plain", Map.of(S3AttachmentStore.META_OWNER,
                "task-8/call-1", S3AttachmentStore.META_SHA256, ref.sha256()),
                S3AttachmentStore.Sha256.hex(bytes("the altered! text")));
        AttachmentVerifier verifier = new AttachmentVerifier(store, config.keyPrefix());
        assertThat(failure(verifier.verifyStored(List.of(ref), "task-8/call-1", LIMITS)))
                .isEqualTo(AttachmentFailure.HASH_MISMATCH);
        store.deleteOwnedBy("task-8/call-1");
    }

    @Test
    void shouldReportAnUnreachableStoreAsTransientNotInvalid() throws Exception {
        Map<String, String> settings = new HashMap<>(server.storageConfig("it-bucket", dir.resolve("secrets")));
        int deadPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        settings.put(ObjectStoreConfig.ENDPOINT_CONFIG, "http://127.0.0.1:" + deadPort);
        ObjectStoreConfig deadConfig = new ObjectStoreConfig(settings);
        try (S3AttachmentStore dead = S3AttachmentStore.create(deadConfig, Duration.ofMillis(500))) {
            AttachmentRef ref = new AttachmentRef("attachments/task-6/call-1/abc", "0".repeat(64), 3,
                    "text/plain", "task-6/call-1");
            AttachmentVerifier verifier = new AttachmentVerifier(dead, deadConfig.keyPrefix());
            Verification admission = verifier.verifyStored(List.of(ref), "task-6/call-1", LIMITS);
            Verification dispatch = verifier.verifyAndLoad(List.of(ref), "task-6/call-1", LIMITS);
            assertThat(failure(admission)).isEqualTo(AttachmentFailure.STORAGE_UNAVAILABLE);
            assertThat(((Verification.Failed) dispatch).retryable()).isTrue();
            assertThatThrownBy(() -> dead.deleteOwnedBy("task-6/call-1"))
                    .isInstanceOf(StorageUnavailableException.class);
        }
    }

    @Test
    void shouldInitIdempotentlyAndSayWhetherTheLifecycleRuleIsInstalled() {
        AttachmentStore.InitResult again = store.init(3);
        assertThat(again.bucketCreated()).isFalse();
        if (again.lifecycleInstalled()) {
            assertThat(store.lifecycleRules()).anySatisfy(rule -> {
                assertThat(rule.id()).isEqualTo(S3AttachmentStore.LIFECYCLE_RULE_ID);
                assertThat(rule.expiration().days()).isEqualTo(3);
            });
        } else {
            assertThat(again.lifecycleNote()).contains("does not support bucket lifecycle rules");
        }
    }

    private static AttachmentFailure failure(Verification v) {
        assertThat(v).isInstanceOf(Verification.Failed.class);
        return ((Verification.Failed) v).failure();
    }

    /** Replaces an object behind the store's back, as an attacker with bucket access would. */
    private static void overwrite(AttachmentRef ref, byte[] content, String type, Map<String, String> metadata) {
        overwrite(ref, content, type, metadata, null);
    }

    /** As above, sending {@code sha256Hex} as the object's additional checksum when not null. */
    private static void overwrite(AttachmentRef ref, byte[] content, String type, Map<String, String> metadata,
                                  String sha256Hex) {
        try (S3Client raw = S3Client.builder().endpointOverride(server.endpoint()).forcePathStyle(true)
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(() -> software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                        SecretReference.resolve("id", "file:" + dir.resolve("secrets/s3-access-key-id")),
                        SecretReference.resolve("secret", "file:" + dir.resolve("secrets/s3-secret-access-key"))))
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .build()) {
            raw.putObject(b -> {
                b.bucket("it-bucket").key(ref.objectKey()).contentType(type).metadata(metadata);
                if (sha256Hex != null) {
                    b.checksumSHA256(java.util.Base64.getEncoder().encodeToString(
                            java.util.HexFormat.of().parseHex(sha256Hex)));
                }
            }, RequestBody.fromBytes(content));
        }
        assertThat(Optional.of(ref)).isPresent();
    }
}
