package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Origin;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
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
        return StateRecords.action(p);
    }

    @Test
    void shouldRoundTripTheActionStateThroughItsVersionedSerde() {
        ActionState state = ActionState.fresh(action(), "sha256:d", 10L)
                .to(Phase.APPROVED, null, null, 10L)
                .withAttempt(ActionState.AttemptRecord.reserved(1, 10L, 70L))
                .to(Phase.DISPATCHING, null, null, 10L)
                .withAttempt(ActionState.AttemptRecord.reserved(1, 10L, 70L)
                        .observed(DispatchResult.Status.RETRYABLE, false, 429, "RATE_LIMITED", 11L, 12L))
                .withResolution(ActionState.Resolver.GATE, null, null)
                .to(Phase.RETRY_WAIT, ReasonCode.RATE_LIMITED, "attempt 2 scheduled", 12L).withTimer("k", 99L);
        ActionStateSerde serde = new ActionStateSerde();
        byte[] bytes = serde.serialize("t", state);
        assertThat(bytes).startsWith((byte) 0xC3, (byte) 0x01); // layout 2: Avro single object
        assertThat(serde.deserialize("t", bytes)).isEqualTo(state);
    }

    @Test
    void shouldReadAStateStoredWhenReasonResolverAndAttemptStatusWereStrings() {
        // layout v=1 as the gate wrote it before these fields were enums (the enum names equal the strings)
        String stored = "{\"v\":1,\"action\":{\"taskId\":\"T-1\",\"toolCallId\":\"c-1\",\"taskVersion\":3,"
                + "\"orgId\":\"acme\",\"principalId\":\"u\",\"profileId\":\"p\",\"authorizationEpoch\":2,"
                + "\"provider\":\"webhook\",\"operation\":\"send\",\"toolName\":\"send\","
                + "\"toolSchemaHash\":\"sha256:s\",\"inputDigest\":\"sha256:i\",\"idempotencyKey\":\"k\","
                + "\"attachments\":[]},\"phase\":\"FAILED\",\"reasonCode\":\"RETRIES_EXHAUSTED\","
                + "\"reason\":\"3 attempts used\",\"actionDigest\":\"sha256:d\",\"attempts\":["
                + "{\"attempt\":1,\"reservedAt\":10,\"leaseExpiresAt\":70,\"status\":\"NOT_DISPATCHED\","
                + "\"dispatched\":false,\"errorCode\":\"STORAGE_UNAVAILABLE\"},"
                + "{\"attempt\":2,\"reservedAt\":80,\"leaseExpiresAt\":140,\"status\":\"RETRYABLE\","
                + "\"dispatched\":true,\"httpStatus\":503}],"
                + "\"resolvedBy\":\"GATE\",\"timerKey\":\"0000000000000099999|PURGE_ACTION|T-1/c-1\","
                + "\"dueAt\":99999,\"createdAt\":5,\"updatedAt\":150}";
        ActionState state = new JsonSerde<>(ActionState.class).deserialize("gate-actions",
                stored.getBytes(StandardCharsets.UTF_8));
        assertThat(state.phase()).isEqualTo(Phase.FAILED);
        assertThat(state.reasonCode()).isEqualTo(ReasonCode.RETRIES_EXHAUSTED);
        assertThat(state.resolvedBy()).isEqualTo(ActionState.Resolver.GATE);
        assertThat(state.attempts()).extracting(ActionState.AttemptRecord::status).containsExactly(
                DispatchResult.Status.NOT_DISPATCHED, DispatchResult.Status.RETRYABLE);
        assertThat(state.key()).isEqualTo("T-1/c-1");
        // and it is written back in the same shape: the strings are the enum names
        String written = new String(new JsonSerde<>(ActionState.class).serialize("gate-actions", state),
                StandardCharsets.UTF_8);
        assertThat(written).contains("\"reasonCode\":\"RETRIES_EXHAUSTED\"", "\"resolvedBy\":\"GATE\"",
                "\"status\":\"NOT_DISPATCHED\"", "\"status\":\"RETRYABLE\"");
        assertThat(StateRecords.receipt(state).getReasonCode()).isEqualTo("RETRIES_EXHAUSTED");
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
        assertThat(action().idempotencyKey()).isEqualTo(StateRecords.derivedIdempotencyKey("T-1/c-1"))
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
