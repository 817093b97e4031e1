package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.IdempotencyKeys;

class ActionStateSerdeTest {

    private final ActionStateSerde serde = new ActionStateSerde();

    /** An action with everything set: origin, an attachment with a reference, a trace, an attempt in flight. */
    private static ActionState dispatching() {
        ActionState.Action a = InternalModelTest.action();
        ActionState.Action full = new ActionState.Action(a.taskId(), a.toolCallId(), a.taskVersion(), a.orgId(),
                a.principalId(), a.profileId(), a.authorizationEpoch(), a.provider(), a.operation(), a.toolName(),
                a.toolSchemaHash(), a.inputJson(), a.inputDigest(), a.summary(), a.idempotencyKey(), "biz-1",
                new ActionState.OriginRef("conv", "t", "m-a", null),
                List.of(new ActionState.AttachmentRef("uploads/MARKER-object", "0".repeat(64), 12, "text/plain",
                        "inv-1")));
        ActionState fresh = ActionState.fresh(full, "sha256:d", 10L);
        ActionState traced = new ActionState(fresh.v(), full, fresh.phase(), null, null, "sha256:d", null, null,
                null, List.of(), null, null, null, null, null, 10L, 10L, Map.of("traceparent", "00-abc-def-01"));
        long due = 70L + 5_000L;
        return traced.to(Phase.APPROVED, null, null, 10L)
                .withAttempt(ActionState.AttemptRecord.reserved(1, 10L, 70L))
                .to(Phase.DISPATCHING, null, null, 10L)
                .withTimer(Timers.key(due, Timers.Kind.LEASE, full.key()), due);
    }

    private static ActionState with(ActionState d, int v, ActionState.Action action) {
        return new ActionState(v, action, d.phase(), d.reasonCode(), d.reason(), d.actionDigest(), d.decisionId(),
                d.approvalExpiresAt(), d.approvedBy(), d.attempts(), d.providerReceiptId(), d.resolvedBy(),
                d.resolutionId(), d.timerKey(), d.dueAt(), d.createdAt(), d.updatedAt(), d.trace());
    }

    @Test
    void shouldRoundTripAStateInLayout2AsAvroSingleObject() {
        ActionState state = dispatching();
        byte[] bytes = serde.serialize("gate-actions", state);
        assertThat(bytes[0]).isEqualTo((byte) 0xC3);
        assertThat(bytes[1]).isEqualTo((byte) 0x01);
        assertThat(serde.deserialize("gate-actions", bytes)).isEqualTo(state);
    }

    @Test
    void shouldStoreNeitherTheDerivedIdempotencyKeyNorTheDerivedTimerKey() {
        ActionState state = dispatching();
        assertThat(state.action().idempotencyKey()).isEqualTo(IdempotencyKeys.derived(state.key()));
        String text = new String(serde.serialize("gate-actions", state), StandardCharsets.ISO_8859_1);
        assertThat(text).doesNotContain(state.action().idempotencyKey()).doesNotContain(state.timerKey())
                .doesNotContain("\"v\"");
    }

    @Test
    void shouldKeepAKeyThatIsNotTheDerivedOneAndAMissingOne() {
        ActionState odd = dispatching().withTimer("0000000000000000001|X|other", 99L);
        assertThat(serde.deserialize("t", serde.serialize("t", odd))).isEqualTo(odd);
        ActionState none = dispatching().withTimer(null, 99L);
        assertThat(serde.deserialize("t", serde.serialize("t", none)).timerKey()).isNull();
        ActionState.Action refused = dispatching().action().withoutInput();
        assertThat(refused.idempotencyKey()).isNull();
        ActionState rejected = ActionState.fresh(refused, null, 1L).to(Phase.REJECTED, ReasonCode.SCHEMA_INVALID,
                "bad", 1L);
        assertThat(serde.deserialize("t", serde.serialize("t", rejected))).isEqualTo(rejected);
    }

    @Test
    void shouldDropTheInputWhenTheActionSettlesAndKeepWhatItsReceiptAndIdentityNeed() {
        ActionState live = dispatching();
        ActionState settled = live.withAttempt(live.lastAttempt().observed(DispatchResult.Status.SUCCEEDED, true,
                200, null, 11L, 12L)).to(Phase.SUCCEEDED, null, null, 12L);
        assertThat(settled.action().inputJson()).isNull();
        assertThat(settled.action().attachments()).singleElement().satisfies(r -> {
            assertThat(r.objectKey()).isNull();
            assertThat(r.sha256()).isEqualTo("0".repeat(64));
        });
        assertThat(settled.action().summary()).isEqualTo(live.action().summary()); // the read model shows it
        assertThat(settled.actionDigest()).isEqualTo(live.actionDigest()); // what a redelivery is compared by
        assertThat(StateRecords.receipt(settled)).as("the receipt is the one the whole action gives")
                .isEqualTo(StateRecords.receipt(with(settled, 2, live.action())));
        byte[] bytes = serde.serialize("gate-actions", settled);
        assertThat(new String(bytes, StandardCharsets.ISO_8859_1)).doesNotContain("MARKER-secret-body")
                .doesNotContain("MARKER-object");
        assertThat(serde.deserialize("gate-actions", bytes)).isEqualTo(settled);
        assertThat(live.action().inputJson()).as("a live action keeps its input").isNotNull();
    }

    @Test
    void shouldRestoreALayout1JsonStateWrittenByTheJsonSerde() {
        // the bytes today's changelogs hold: layout 1, JSON, written by JsonSerde (v = 1)
        ActionState d = dispatching();
        ActionState layout1 = with(d, 1, d.action());
        byte[] json = new JsonSerde<>(ActionState.class).serialize("gate-actions", layout1);
        assertThat(new String(json, StandardCharsets.UTF_8)).startsWith("{").contains("\"v\":1");

        ActionState restored = serde.deserialize("gate-actions", json);
        assertThat(restored).isEqualTo(layout1);
        // written back in layout 2, and read again as the same action
        ActionState rewritten = serde.deserialize("gate-actions", serde.serialize("gate-actions", restored));
        assertThat(rewritten.v()).isEqualTo(ActionStateSerde.LAYOUT);
        assertThat(rewritten).isEqualTo(d);
    }

    @Test
    void shouldRestoreTheLayout1JsonAsAnOlderGateWroteIt() {
        String stored = "{\"v\":1,\"action\":{\"taskId\":\"T-1\",\"toolCallId\":\"c-1\",\"taskVersion\":3,"
                + "\"orgId\":\"acme\",\"principalId\":\"u\",\"profileId\":\"p\",\"authorizationEpoch\":2,"
                + "\"provider\":\"webhook\",\"operation\":\"send\",\"toolName\":\"send\","
                + "\"toolSchemaHash\":\"sha256:s\",\"inputJson\":\"{\\\"a\\\":1}\",\"inputDigest\":\"sha256:i\","
                + "\"idempotencyKey\":\"k\",\"attachments\":[]},\"phase\":\"DISPATCHING\","
                + "\"actionDigest\":\"sha256:d\",\"attempts\":[{\"attempt\":1,\"reservedAt\":10,"
                + "\"leaseExpiresAt\":70}],\"timerKey\":\"0000000000000005070|L|T-1/c-1\",\"dueAt\":5070,"
                + "\"createdAt\":5,\"updatedAt\":10,\"trace\":{\"traceparent\":\"00-abc-def-01\"}}";
        ActionState state = serde.deserialize("gate-actions", stored.getBytes(StandardCharsets.UTF_8));
        assertThat(state.v()).isEqualTo(1);
        assertThat(state.phase()).isEqualTo(Phase.DISPATCHING);
        assertThat(state.action().inputJson()).isEqualTo("{\"a\":1}");
        assertThat(state.action().idempotencyKey()).isEqualTo("k");
        assertThat(state.lastAttempt().leaseExpiresAt()).isEqualTo(70L);
        assertThat(state.timerKey()).isEqualTo("0000000000000005070|L|T-1/c-1");
        assertThat(state.trace()).containsEntry("traceparent", "00-abc-def-01");
        ActionState again = serde.deserialize("t", serde.serialize("t", state));
        assertThat(again.timerKey()).isEqualTo(state.timerKey());
        assertThat(again.action()).isEqualTo(state.action());
    }

    @Test
    void shouldRefuseBytesOfNeitherLayoutWithoutQuotingThem() {
        // the single-object marker under another fingerprint: a newer layout, which stops the gate,
        // still without quoting the bytes (a leading string is named only as a release, "actiongate ...")
        byte[] other = {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 'M', 'A', 'R', 'K', 'E', 'R'};
        assertThatThrownBy(() -> serde.deserialize("t", other))
                .isInstanceOf(io.actiongate.serde.UnknownFormatException.class).hasMessageNotContaining("MARKER");
        byte[] quoted = {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 12, 'M', 'A', 'R', 'K', 'E', 'R'};
        assertThatThrownBy(() -> serde.deserialize("t", quoted))
                .isInstanceOf(io.actiongate.serde.UnknownFormatException.class).hasMessageNotContaining("MARKER");
        assertThatThrownBy(() -> serde.deserialize("t", "MARKER".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(SerializationException.class).hasMessageNotContaining("MARKER");
        byte[] truncated = java.util.Arrays.copyOf(serde.serialize("t", dispatching()), 30);
        assertThatThrownBy(() -> serde.deserialize("t", truncated)).isInstanceOf(SerializationException.class);
    }
}
