package io.actiongate.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class AttachmentDispatchGuardTest {

    private final InMemoryAttachmentStore store = new InMemoryAttachmentStore();
    private final Map<String, String> hashes = new HashMap<>(Map.of("webhook/send_report", "sha256:v1"));
    private boolean ready = true;
    private final ToolSchemaHashes schemas = new ToolSchemaHashes() {
        @Override
        public boolean ready() {
            return ready;
        }

        @Override
        public Optional<String> schemaHash(String provider, String toolName) {
            return Optional.ofNullable(hashes.get(provider + "/" + toolName));
        }
    };
    private final AttachmentDispatchGuard guard = new AttachmentDispatchGuard(
            new AttachmentVerifier(store, "attachments/"),
            new ObjectStoreConfig(Map.of("storage.content.types", "text/plain")), schemas);

    private PreDispatchCheck.Request request(String schemaHash, List<AttachmentRef> refs) {
        return new PreDispatchCheck.Request("t", "c", "webhook", "send_report", schemaHash, refs);
    }

    @Test
    void shouldLoadVerifiedBytesWhenSchemaAndObjectsMatch() {
        AttachmentRef ref = store.stage("t/c", "text/plain", new byte[] {1, 2, 3});
        PreDispatchCheck.Result result = guard.check(request("sha256:v1", List.of(ref)));
        assertThat(result).isInstanceOf(PreDispatchCheck.Proceed.class);
        assertThat(((PreDispatchCheck.Proceed) result).attachments()).singleElement()
                .satisfies(l -> assertThat(l.bytes()).containsExactly(1, 2, 3));
    }

    @Test
    void shouldRefuseWhenTheLiveSchemaHashMovedOrTheDescriptorIsGone() {
        AttachmentRef ref = store.stage("t/c", "text/plain", new byte[] {1});
        assertThat(guard.check(request("sha256:v0", List.of(ref))))
                .isEqualTo(new PreDispatchCheck.Refuse("TOOL_SCHEMA_CHANGED", "tool schema changed since the proposal",
                        false));
        hashes.clear();
        assertThat(guard.check(request("sha256:v1", List.of(ref))))
                .isInstanceOfSatisfying(PreDispatchCheck.Refuse.class, r -> {
                    assertThat(r.errorCode()).isEqualTo("TOOL_SCHEMA_CHANGED");
                    assertThat(r.retryable()).isFalse();
                });
    }

    @Test
    void shouldWaitForThePolicyViewAndForTheStoreRatherThanGuess() {
        AttachmentRef ref = store.stage("t/c", "text/plain", new byte[] {1});
        ready = false;
        assertThat(guard.check(request("sha256:v1", List.of(ref))))
                .isInstanceOfSatisfying(PreDispatchCheck.Refuse.class, r -> {
                    assertThat(r.errorCode()).isEqualTo("POLICY_UNAVAILABLE");
                    assertThat(r.retryable()).isTrue();
                });
        ready = true;
        store.unavailable = true;
        assertThat(guard.check(request("sha256:v1", List.of(ref))))
                .isInstanceOfSatisfying(PreDispatchCheck.Refuse.class, r -> {
                    assertThat(r.errorCode()).isEqualTo("STORAGE_UNAVAILABLE");
                    assertThat(r.retryable()).isTrue();
                });
    }

    @Test
    void shouldRefuseAnObjectThatNoLongerMatchesAsInvalid() {
        AttachmentRef ref = store.stage("t/c", "text/plain", new byte[] {1});
        AttachmentRef claimed = new AttachmentRef(ref.objectKey(), "0".repeat(64), 1, "text/plain", "t/c");
        assertThat(guard.check(request("sha256:v1", List.of(claimed))))
                .isInstanceOfSatisfying(PreDispatchCheck.Refuse.class, r -> {
                    assertThat(r.errorCode()).isEqualTo("ATTACHMENT_INVALID");
                    assertThat(r.detail()).contains("hash mismatch");
                    assertThat(r.retryable()).isFalse();
                });
    }

    @Test
    void shouldPassReservationsWithoutAttachmentsUntouched() {
        ready = false;
        store.unavailable = true;
        assertThat(guard.check(request("sha256:other", List.of())))
                .isEqualTo(new PreDispatchCheck.Proceed(List.of()));
    }
}
