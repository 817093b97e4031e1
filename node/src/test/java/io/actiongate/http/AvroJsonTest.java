package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.serde.AvroSetup;

class AvroJsonTest {

    private static final Instant AT = Instant.parse("2026-11-30T02:00:00Z");

    @BeforeAll
    static void trustContractClasses() {
        AvroSetup.install();
    }

    @Test
    void shouldRenderAReceiptWithSnakeCaseFieldsSymbolsAndIsoInstants() {
        Receipt receipt = Receipt.newBuilder().setTaskId("T-1").setToolCallId("c-1")
                .setStatus(ReceiptStatus.SUCCEEDED).setToolName("send").setProvider("webhook").setOperation("send")
                .setResolvedBy(ResolvedBy.RECONCILER).setUpdatedAt(AT)
                .setAttempts(List.of(AttemptSummary.newBuilder().setAttempt(1).setStatus(OutcomeStatus.UNKNOWN)
                        .setDispatched(true).setStartedAt(AT).build()))
                .build();

        ObjectNode json = AvroJson.toJson(receipt);

        assertThat(json.get("task_id").asText()).isEqualTo("T-1");
        assertThat(json.get("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(json.get("resolved_by").asText()).isEqualTo("RECONCILER");
        assertThat(json.get("updated_at").asText()).isEqualTo("2026-11-30T02:00:00Z");
        assertThat(json.get("reason_code").isNull()).isTrue();
        assertThat(json.get("attempts").get(0).get("status").asText()).isEqualTo("UNKNOWN");
        assertThat(json.get("attempts").get(0).get("dispatched").asBoolean()).isTrue();
        assertThat(json.get("attempts").get(0).get("started_at").asText()).isEqualTo("2026-11-30T02:00:00Z");
    }

    @Test
    void shouldLeaveOutInputBodiesAndBytes() {
        ActionProposal proposal = ActionProposal.newBuilder().setTaskId("T-1").setToolCallId("c-1")
                .setTaskVersion(1).setOrgId("o").setPrincipalId("p").setProfileId("pr").setAuthorizationEpoch(1)
                .setProvider("webhook").setOperation("send").setToolName("send").setToolSchemaHash("h")
                .setInputJson("{\"password\":\"hunter2\"}").setInputDigest("sha256:x").setSummary("s")
                .setProposedAt(AT).build();
        Decision decision = Decision.newBuilder().setDecisionId("d").setTaskId("T-1").setToolCallId("c-1")
                .setType(DecisionType.APPROVE).setActionDigest("sha256:x").setApproverSubject("a")
                .setApproverOrg("o").setAuthMethod("m").setIssuedAt(AT).setExpiresAt(AT).setKeyId("k")
                .setSignature(ByteBuffer.wrap(new byte[] {1, 2, 3})).build();

        assertThat(AvroJson.toJson(proposal).toString()).doesNotContain("hunter2").doesNotContain("input_json")
                .contains("\"input_digest\":\"sha256:x\"");
        assertThat(AvroJson.toJson(decision).has("signature")).isFalse();
        assertThat(AvroJson.toJson(decision).get("type").asText()).isEqualTo("APPROVE");
    }
}
