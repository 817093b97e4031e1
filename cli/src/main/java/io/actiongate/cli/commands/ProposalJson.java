package io.actiongate.cli.commands;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.Origin;
import io.actiongate.contract.ContractLimits;
import io.actiongate.digest.Digests;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSetup;

/**
 * Maps the operator's JSON description of a proposal to an {@link ActionProposal}: the fields of docs/contract.md
 * section 3 in snake_case, with {@code input} as a JSON object instead of {@code input_json}. The mapper computes
 * {@code input_json} (compact JSON) and {@code input_digest}; {@code proposed_at} defaults to now.
 */
public final class ProposalJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("task_id", "tool_call_id", "task_version", "org_id",
            "principal_id", "profile_id", "authorization_epoch", "provider", "operation", "tool_name",
            "tool_schema_hash", "input", "summary", "idempotency_key", "business_operation_id", "origin",
            "attachments", "claimed_annotations", "proposed_at");
    private static final Set<String> ORIGIN_FIELDS =
            Set.of("conversation_id", "turn_id", "assistant_message_id", "human_message_id");
    private static final Set<String> ATTACHMENT_FIELDS =
            Set.of("object_key", "sha256", "size_bytes", "content_type", "owner_invocation_id");

    private ProposalJson() {
    }

    /** @throws IllegalArgumentException with a one-line reason for anything invalid */
    public static ActionProposal fromJson(JsonNode json, Instant now) {
        AvroSetup.install(); // builders fill defaults by loading contract classes, which Avro must trust
        JsonFields f = new JsonFields("proposal", json);
        if (f.has("input_json")) {
            throw f.bad("input_json", "is computed; give the input as the JSON object 'input'");
        }
        f.allowOnly(FIELDS);
        String taskId = f.text("task_id");
        String toolCallId = f.text("tool_call_id");
        if (!ActionKey.isValid(taskId, toolCallId)) {
            throw new IllegalArgumentException("proposal: task_id and tool_call_id must match "
                    + ContractLimits.ID_PATTERN.pattern());
        }
        JsonNode input = f.raw("input");
        if (input == null || !input.isObject()) {
            throw f.bad("input", "must be a JSON object");
        }
        String summary = f.text("summary");
        if (summary.length() > ContractLimits.SUMMARY_MAX_CHARS) {
            throw f.bad("summary", "must be at most " + ContractLimits.SUMMARY_MAX_CHARS + " characters");
        }
        String inputJson = compact(input);
        return ActionProposal.newBuilder()
                .setTaskId(taskId)
                .setToolCallId(toolCallId)
                .setTaskVersion(f.longValue("task_version"))
                .setOrgId(f.text("org_id"))
                .setPrincipalId(f.text("principal_id"))
                .setProfileId(f.text("profile_id"))
                .setAuthorizationEpoch(f.longValue("authorization_epoch"))
                .setProvider(f.text("provider"))
                .setOperation(f.text("operation"))
                .setToolName(f.text("tool_name"))
                .setToolSchemaHash(f.text("tool_schema_hash"))
                .setInputJson(inputJson)
                .setInputDigest(Digests.inputDigest(inputJson))
                .setSummary(summary)
                .setIdempotencyKey(f.optionalText("idempotency_key"))
                .setBusinessOperationId(f.optionalText("business_operation_id"))
                .setOrigin(f.has("origin") ? origin(f.object("origin")) : null)
                .setAttachments(attachments(f))
                .setClaimedAnnotations(f.optionalTextMap("claimed_annotations"))
                .setProposedAt(f.instant("proposed_at", now))
                .build();
    }

    private static Origin origin(JsonFields o) {
        o.allowOnly(ORIGIN_FIELDS);
        return Origin.newBuilder()
                .setConversationId(o.text("conversation_id"))
                .setTurnId(o.text("turn_id"))
                .setAssistantMessageId(o.optionalText("assistant_message_id"))
                .setHumanMessageId(o.optionalText("human_message_id"))
                .build();
    }

    private static List<Attachment> attachments(JsonFields f) {
        if (!f.has("attachments")) {
            return List.of();
        }
        JsonNode array = f.raw("attachments");
        if (!array.isArray()) {
            throw f.bad("attachments", "must be an array");
        }
        List<Attachment> attachments = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            JsonFields a = new JsonFields("proposal.attachments[" + i + "]", array.get(i));
            a.allowOnly(ATTACHMENT_FIELDS);
            String sha256 = a.text("sha256");
            if (!sha256.matches("[0-9a-f]{64}")) {
                throw a.bad("sha256", "must be 64 lowercase hex characters");
            }
            long size = a.longValue("size_bytes");
            if (size < 0) {
                throw a.bad("size_bytes", "must not be negative");
            }
            attachments.add(Attachment.newBuilder()
                    .setObjectKey(a.text("object_key"))
                    .setSha256(sha256)
                    .setSizeBytes(size)
                    .setContentType(a.text("content_type"))
                    .setOwnerInvocationId(a.text("owner_invocation_id"))
                    .build());
        }
        return attachments;
    }

    static String compact(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("proposal: input cannot be written as JSON", e);
        }
    }
}
