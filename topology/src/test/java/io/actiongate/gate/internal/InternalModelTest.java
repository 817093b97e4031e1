package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Origin;
import io.actiongate.digest.Digests;

class InternalModelTest {

    static final String INPUT = "{\"body\":\"MARKER-secret-body\"}";

    static ActionState.Action action() {
        ActionProposal p = ActionProposal.newBuilder().setTaskId("T-1").setToolCallId("c-1").setTaskVersion(3)
                .setOrgId("acme").setPrincipalId("u").setProfileId("p").setAuthorizationEpoch(2).setProvider("webhook")
                .setOperation("send").setToolName("send").setToolSchemaHash("sha256:s").setInputJson(INPUT)
                .setInputDigest(Digests.inputDigest(INPUT)).setSummary("MARKER-summary").setIdempotencyKey(null)
                .setBusinessOperationId(null).setOrigin(Origin.newBuilder().setConversationId("conv")
                        .setTurnId("t").setAssistantMessageId(null).setHumanMessageId(null).build())
                .setAttachments(List.of()).setClaimedAnnotations(null)
                .setProposedAt(java.time.Instant.EPOCH).build();
        return Records.action(p);
    }

    @Test
    void shouldRoundTripTheActionStateThroughItsVersionedJsonSerde() {
        ActionState state = ActionState.fresh(action(), "sha256:d", 10L)
                .withAttempt(ActionState.AttemptRecord.reserved(1, 10L, 70L)
                        .observed("RETRYABLE", false, 429, "RATE_LIMITED", 11L, 12L))
                .to(Phase.RETRY_WAIT, null, "attempt 2 scheduled", 12L).withTimer("k", 99L);
        JsonSerde<ActionState> serde = new JsonSerde<>(ActionState.class);
        byte[] bytes = serde.serialize("t", state);
        assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"v\":1");
        assertThat(serde.deserialize("t", bytes)).isEqualTo(state);
    }

    @Test
    void shouldIgnoreUnknownFieldsOfANewerLayout() {
        JsonSerde<ActionState> serde = new JsonSerde<>(ActionState.class);
        String json = new String(serde.serialize("t", ActionState.fresh(action(), null, 1L)), StandardCharsets.UTF_8);
        String newer = json.replaceFirst("\\{", "{\"added_later\":true,");
        assertThat(serde.deserialize("t", newer.getBytes(StandardCharsets.UTF_8)).action().taskId()).isEqualTo("T-1");
    }

    @Test
    void shouldNeverRenderTheInputOrSummaryInToString() {
        String text = ActionState.fresh(action(), "sha256:d", 1L).toString();
        assertThat(text).contains("T-1/c-1").doesNotContain("MARKER");
    }

    @Test
    void shouldDeriveAStableIdempotencyKeyWhenTheProposalHasNone() {
        assertThat(action().idempotencyKey()).isEqualTo(Records.derivedIdempotencyKey("T-1/c-1"))
                .isEqualTo(action().idempotencyKey()).startsWith("ag-");
    }

    @Test
    void shouldOrderTimerKeysByDueTimeAndBoundTheDuePrefix() {
        List<String> keys = new ArrayList<>(List.of(Timers.key(1_000, Timers.Kind.RETRY, "T/b"),
                Timers.key(999, Timers.Kind.LEASE, "T/a"), Timers.key(10_000, Timers.Kind.PURGE_ACTION, "T/c")));
        keys.sort(null);
        assertThat(keys).extracting(k -> Timers.parse(k).due()).containsExactly(999L, 1_000L, 10_000L);
        assertThat(Timers.parse(keys.get(0))).isEqualTo(new Timers.Timer(999, Timers.Kind.LEASE, "T/a"));
        assertThat(keys.get(1).compareTo(Timers.dueUpperBound(1_000))).isNegative();
        assertThat(keys.get(2).compareTo(Timers.dueUpperBound(9_999))).isPositive();
        assertThat(keys.get(0).compareTo(Timers.LOWER_BOUND)).isPositive();
    }
}
