package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedForward;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.contract.ReasonCode;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/**
 * The decisions route is the one place a decision read from its topic is decoded: what it passes on is the decoded
 * decision, so neither the claim nor the malformed path decodes the record again.
 */
class DecisionRouteDecodesOnceTest {

    private static final AvroSerde<Decision> SERDE = AvroSerdes.serde(Decision.class);
    private static final String DECIDE = "decide";
    private static final String CLAIM = "claim";
    private static final String HOP = "hop";

    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private final DecisionRouteProcessor route = new DecisionRouteProcessor(SERDE, new Routing(1), DECIDE, CLAIM, HOP,
            GroupCommits.of(false));

    DecisionRouteDecodesOnceTest() {
        context.setRecordMetadata("actiongate.decisions", 0, 7L);
        context.setCurrentSystemTimeMs(1_000L);
        route.init(context);
    }

    private static Decision decision(String taskId) {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        return Decision.newBuilder().setDecisionId("d-1").setTaskId(taskId).setToolCallId("call-1")
                .setType(DecisionType.APPROVE).setActionDigest("sha256:" + "0".repeat(64))
                .setApproverSubject("alice@acme.example").setApproverOrg("acme").setAuthMethod("webauthn")
                .setIssuedAt(now).setExpiresAt(now.plusSeconds(3600)).setKeyId("k1")
                .setSignature(ByteBuffer.allocate(0)).build();
    }

    private List<CapturedForward<?, ?>> route(String key, byte[] value) {
        route.process(new Record<>(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, 1L));
        return List.copyOf(context.forwarded());
    }

    @Test
    void shouldPassTheDecodedDecisionToTheClaim() {
        Decision d = decision("task-1");
        byte[] raw = SERDE.serialize(null, d);
        List<CapturedForward<?, ?>> out = route(ActionKey.format("task-1", "call-1"), raw);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).childName()).contains(CLAIM);
        Inbound<?> in = (Inbound<?>) out.get(0).record().value();
        assertThat(in.value()).isEqualTo(d);
        assertThat(in.rawValue()).isEqualTo(raw);
        assertThat(in.signatureVerified()).isFalse();
        assertThat(in.origin()).isEqualTo(new Origin("actiongate.decisions", 0, 7L));
    }

    @Test
    void shouldPassAMalformedDecisionDecodedToTheDecider() {
        Decision d = decision("task-1");
        List<CapturedForward<?, ?>> out = route(ActionKey.format("task-2", "call-1"), SERDE.serialize(null, d));
        assertThat(out).hasSize(1);
        assertThat(out.get(0).childName()).contains(DECIDE);
        assertThat(((Inbound<?>) out.get(0).record().value()).value()).isEqualTo(d);
        assertThat(out.get(0).record().key()).isEqualTo(ActionKey.format("task-2", "call-1"));
    }

    @Test
    void shouldDeadLetterWhatDoesNotDecodeItself() {
        List<CapturedForward<?, ?>> out = route("k", new byte[] {1, 2, 3});
        assertThat(out).hasSize(1);
        assertThat(out.get(0).childName()).contains(DeadLetters.SINK);
        assertThat(out.get(0).record().value().toString()).contains(ReasonCode.SCHEMA_INVALID.name());
    }

    @Test
    void shouldIgnoreATombstone() {
        assertThat(route("k", null)).isEmpty();
    }
}
