package io.actiongate.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.Origin;
import io.actiongate.contract.ContractLimits;
import io.actiongate.digest.Digests;
import io.actiongate.digest.Jcs;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSetup;

/** The serde edge: a {@link ProposalRequest} checked and turned into the Avro {@link ActionProposal}. */
final class ProposalMapper {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ProposalMapper() {
    }

    static ActionProposal toAvro(ProposalRequest r, Instant now) {
        return map(r, now).proposal();
    }

    /**
     * The proposal, and the JCS of its input (UTF-8) that its input digest was computed from: the caller computes
     * the action digest from the same bytes ({@link Digests#actionDigestOfCanonicalInput}), so the input is
     * canonicalised once per proposal and never parsed again.
     */
    record Mapped(ActionProposal proposal, byte[] canonicalInput) {
    }

    static Mapped map(ProposalRequest r, Instant now) {
        AvroSetup.install();
        if (!ActionKey.isValidId(r.taskId)) {
            throw new InvalidProposalException("task_id", "must match " + ContractLimits.ID_PATTERN.pattern());
        }
        if (!ActionKey.isValidId(r.toolCallId)) {
            throw new InvalidProposalException("tool_call_id", "must match " + ContractLimits.ID_PATTERN.pattern());
        }
        if (r.taskVersion < 0) {
            throw new InvalidProposalException("task_version", "is required (a non-negative number)");
        }
        if (r.authorizationEpoch < 0) {
            throw new InvalidProposalException("authorization_epoch", "is required (a non-negative number)");
        }
        required("org_id", r.orgId);
        required("principal_id", r.principalId);
        required("profile_id", r.profileId);
        required("provider", r.provider);
        required("operation", r.operation);
        required("tool_name", r.toolName);
        required("tool_schema_hash", r.toolSchemaHash);
        required("summary", r.summary);
        if (r.summary.length() > ContractLimits.SUMMARY_MAX_CHARS) {
            throw new InvalidProposalException("summary",
                    "must be at most " + ContractLimits.SUMMARY_MAX_CHARS + " characters");
        }
        if (r.input == null || !r.input.isObject()) {
            throw new InvalidProposalException("input", "must be a JSON object");
        }
        if (r.idempotencyKey != null && r.idempotencyKey.isBlank()) {
            throw new InvalidProposalException("idempotency_key", "must be absent or non-blank");
        }
        if ((r.conversationId == null) != (r.turnId == null)) {
            throw new InvalidProposalException("origin", "needs both conversation_id and turn_id");
        }
        for (ProposalRequest.Attachment a : r.attachments) {
            if (a == null || a.objectKey() == null || a.sha256() == null || a.contentType() == null
                    || a.ownerInvocationId() == null || a.sizeBytes() < 0) {
                throw new InvalidProposalException("attachments",
                        "each needs object_key, sha256, size_bytes >= 0, content_type and owner_invocation_id");
            }
        }
        String inputJson;
        try {
            inputJson = MAPPER.writeValueAsString(r.input);
        } catch (JsonProcessingException e) {
            throw new InvalidProposalException("input", "cannot be written as JSON");
        }
        // the tree is what input_json reads back as: its JCS is the input digest's, without parsing the text again
        byte[] canonicalInput = Jcs.canonicalize(r.input).getBytes(StandardCharsets.UTF_8);
        ActionProposal proposal = ActionProposal.newBuilder()
                .setTaskId(r.taskId)
                .setToolCallId(r.toolCallId)
                .setTaskVersion(r.taskVersion)
                .setOrgId(r.orgId)
                .setPrincipalId(r.principalId)
                .setProfileId(r.profileId)
                .setAuthorizationEpoch(r.authorizationEpoch)
                .setProvider(r.provider)
                .setOperation(r.operation)
                .setToolName(r.toolName)
                .setToolSchemaHash(r.toolSchemaHash)
                .setInputJson(inputJson)
                .setInputDigest(Digests.PREFIX + Digests.sha256Hex(canonicalInput))
                .setSummary(r.summary)
                .setIdempotencyKey(r.idempotencyKey)
                .setBusinessOperationId(r.businessOperationId)
                .setOrigin(r.conversationId == null ? null : Origin.newBuilder()
                        .setConversationId(r.conversationId).setTurnId(r.turnId)
                        .setAssistantMessageId(null).setHumanMessageId(null).build())
                .setAttachments(r.attachments.stream().map(a -> Attachment.newBuilder()
                        .setObjectKey(a.objectKey()).setSha256(a.sha256()).setSizeBytes(a.sizeBytes())
                        .setContentType(a.contentType()).setOwnerInvocationId(a.ownerInvocationId()).build())
                        .toList())
                .setClaimedAnnotations(r.claimedAnnotations)
                .setProposedAt(r.proposedAt != null ? r.proposedAt : now)
                .build();
        return new Mapped(proposal, canonicalInput);
    }

    private static void required(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidProposalException(field, "is required");
        }
    }
}
