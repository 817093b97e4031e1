package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.actiongate.avro.ActionProposal;
import io.actiongate.digest.Digests;

class ProposalJsonTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");

    static ObjectNode minimal() {
        try {
            return (ObjectNode) MAPPER.readTree("""
                    {"task_id": "T-1", "tool_call_id": "call-1", "task_version": 3, "org_id": "acme",
                     "principal_id": "user:42", "profile_id": "chat-default", "authorization_epoch": 7,
                     "provider": "webhook", "operation": "send_email", "tool_name": "send_email",
                     "tool_schema_hash": "sha256:abc",
                     "input": {"to": "a@example.org",   "subject": "Notes", "n": [1, 2]},
                     "summary": "Send the summary of two notes to a@example.org"}
                    """);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldMapEveryRequiredFieldAndComputeCompactInputAndDigest() {
        ActionProposal p = ProposalJson.fromJson(minimal(), NOW);

        assertThat(p.getTaskId()).isEqualTo("T-1");
        assertThat(p.getToolCallId()).isEqualTo("call-1");
        assertThat(p.getTaskVersion()).isEqualTo(3L);
        assertThat(p.getOrgId()).isEqualTo("acme");
        assertThat(p.getPrincipalId()).isEqualTo("user:42");
        assertThat(p.getProfileId()).isEqualTo("chat-default");
        assertThat(p.getAuthorizationEpoch()).isEqualTo(7L);
        assertThat(p.getProvider()).isEqualTo("webhook");
        assertThat(p.getOperation()).isEqualTo("send_email");
        assertThat(p.getToolName()).isEqualTo("send_email");
        assertThat(p.getToolSchemaHash()).isEqualTo("sha256:abc");
        assertThat(p.getInputJson()).isEqualTo("{\"to\":\"a@example.org\",\"subject\":\"Notes\",\"n\":[1,2]}");
        assertThat(p.getInputDigest()).isEqualTo(Digests.inputDigest(p.getInputJson())).startsWith("sha256:");
        assertThat(p.getProposedAt()).isEqualTo(NOW);
        assertThat(p.getIdempotencyKey()).isNull();
        assertThat(p.getOrigin()).isNull();
        assertThat(p.getAttachments()).isEmpty();
        assertThat(p.getClaimedAnnotations()).isNull();
    }

    @Test
    void shouldMapOptionalFields() throws Exception {
        ObjectNode json = minimal();
        json.put("idempotency_key", "idem-1");
        json.put("business_operation_id", "bo-9");
        json.put("proposed_at", "2026-11-29T10:00:00Z");
        json.set("origin", MAPPER.readTree("{\"conversation_id\": \"conv-9\", \"turn_id\": \"turn-2\","
                + " \"human_message_id\": \"m-1\"}"));
        json.set("attachments", MAPPER.readTree("[{\"object_key\": \"notes/1.md\", \"sha256\": \""
                + "a".repeat(64) + "\", \"size_bytes\": 12, \"content_type\": \"text/markdown\","
                + " \"owner_invocation_id\": \"inv-1\"}]"));
        json.set("claimed_annotations", MAPPER.readTree("{\"readOnlyHint\": \"true\"}"));

        ActionProposal p = ProposalJson.fromJson(json, NOW);

        assertThat(p.getIdempotencyKey()).isEqualTo("idem-1");
        assertThat(p.getBusinessOperationId()).isEqualTo("bo-9");
        assertThat(p.getProposedAt()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(p.getOrigin().getConversationId()).isEqualTo("conv-9");
        assertThat(p.getOrigin().getTurnId()).isEqualTo("turn-2");
        assertThat(p.getOrigin().getHumanMessageId()).isEqualTo("m-1");
        assertThat(p.getOrigin().getAssistantMessageId()).isNull();
        assertThat(p.getAttachments()).singleElement().satisfies(a -> {
            assertThat(a.getObjectKey()).isEqualTo("notes/1.md");
            assertThat(a.getSizeBytes()).isEqualTo(12L);
            assertThat(a.getOwnerInvocationId()).isEqualTo("inv-1");
        });
        assertThat(p.getClaimedAnnotations()).containsEntry("readOnlyHint", "true");
    }

    @Test
    void shouldGiveTheSameDigestForDifferentlyFormattedEqualInput() throws Exception {
        ObjectNode other = minimal();
        other.set("input", MAPPER.readTree("{\"n\":[1,2],\"subject\":\"Notes\",\"to\":\"a@example.org\"}"));

        assertThat(ProposalJson.fromJson(other, NOW).getInputDigest())
                .isEqualTo(ProposalJson.fromJson(minimal(), NOW).getInputDigest());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "task_id|field 'task_id' is required",
        "summary|field 'summary' is required",
        "input|field 'input' must be a JSON object",
        "task_version|field 'task_version' is required"})
    void shouldNameTheMissingField(String field, String message) {
        ObjectNode json = minimal();
        json.remove(field);

        assertThatThrownBy(() -> ProposalJson.fromJson(json, NOW)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("proposal: " + message);
    }

    @Test
    void shouldRejectInvalidIdentifiers() {
        ObjectNode json = minimal();
        json.put("tool_call_id", "call/1");

        assertThatThrownBy(() -> ProposalJson.fromJson(json, NOW)).hasMessageContaining("must match");
    }

    @Test
    void shouldRejectUnknownFieldsSoTyposAreNotDropped() {
        ObjectNode json = minimal();
        json.put("idempotencykey", "x");

        assertThatThrownBy(() -> ProposalJson.fromJson(json, NOW))
                .hasMessage("proposal: field 'idempotencykey' is not a known field");
    }

    @Test
    void shouldRejectAPrecomputedInputJson() {
        ObjectNode json = minimal();
        json.put("input_json", "{}");

        assertThatThrownBy(() -> ProposalJson.fromJson(json, NOW)).hasMessageContaining("input_json");
    }

    @Test
    void shouldRejectWrongTypesAndTooLongSummaries() {
        ObjectNode wrongType = minimal();
        wrongType.put("task_version", "three");
        assertThatThrownBy(() -> ProposalJson.fromJson(wrongType, NOW))
                .hasMessage("proposal: field 'task_version' must be an integer");

        ObjectNode longSummary = minimal();
        longSummary.put("summary", "x".repeat(281));
        assertThatThrownBy(() -> ProposalJson.fromJson(longSummary, NOW)).hasMessageContaining("280");
    }

    @Test
    void shouldRejectAttachmentsWithoutAValidHash() throws Exception {
        ObjectNode json = minimal();
        json.set("attachments", MAPPER.readTree("[{\"object_key\": \"k\", \"sha256\": \"XYZ\", \"size_bytes\": 1,"
                + " \"content_type\": \"text/plain\", \"owner_invocation_id\": \"i\"}]"));

        assertThatThrownBy(() -> ProposalJson.fromJson(json, NOW))
                .hasMessageStartingWith("proposal.attachments[0]: field 'sha256'");
    }

    @Test
    void shouldRejectSomethingThatIsNotAnObject() throws Exception {
        assertThatThrownBy(() -> ProposalJson.fromJson(MAPPER.readTree("[1]"), NOW))
                .hasMessage("proposal: expected a JSON object");
    }
}
