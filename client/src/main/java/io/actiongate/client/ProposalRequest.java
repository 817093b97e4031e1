package io.actiongate.client;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.json.JsonErrors;
import io.actiongate.key.ActionKey;

/**
 * One tool call a tool host wants to run, before the client fills the computed fields ({@code input_json},
 * {@code input_digest}, {@code proposed_at}). {@code principal_id} and {@code org_id} must come from the tool host's
 * authenticated identity, never from model text. Build with {@link #builder()}; {@link ActionGateClient#propose}
 * validates.
 */
public final class ProposalRequest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    final String taskId;
    final String toolCallId;
    final long taskVersion;
    final String orgId;
    final String principalId;
    final String profileId;
    final long authorizationEpoch;
    final String provider;
    final String operation;
    final String toolName;
    final String toolSchemaHash;
    final JsonNode input;
    final String summary;
    final String idempotencyKey;
    final String businessOperationId;
    final String conversationId;
    final String turnId;
    final Map<String, String> claimedAnnotations;
    final List<Attachment> attachments;
    final Instant proposedAt;

    /**
     * A file the tool call refers to, staged in the object store beforehand (README, "Attachments"): its object key
     * and content hash, never its content.
     */
    public record Attachment(String objectKey, String sha256, long sizeBytes, String contentType,
            String ownerInvocationId) {
    }

    private ProposalRequest(Builder b) {
        taskId = b.taskId;
        toolCallId = b.toolCallId;
        taskVersion = b.taskVersion;
        orgId = b.orgId;
        principalId = b.principalId;
        profileId = b.profileId;
        authorizationEpoch = b.authorizationEpoch;
        provider = b.provider;
        operation = b.operation;
        toolName = b.toolName;
        toolSchemaHash = b.toolSchemaHash;
        input = b.input;
        summary = b.summary;
        idempotencyKey = b.idempotencyKey;
        businessOperationId = b.businessOperationId;
        conversationId = b.conversationId;
        turnId = b.turnId;
        claimedAnnotations = b.claimedAnnotations == null ? null : Map.copyOf(b.claimedAnnotations);
        attachments = b.attachments == null ? List.of() : List.copyOf(b.attachments);
        proposedAt = b.proposedAt;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String actionKey() {
        return ActionKey.format(taskId, toolCallId);
    }

    /** Fields as docs/contract.md section 3 ("Records and fields") names them; {@link ActionGateClient#propose} checks them. */
    public static final class Builder {
        private String taskId;
        private String toolCallId;
        private long taskVersion = -1;
        private String orgId;
        private String principalId;
        private String profileId;
        private long authorizationEpoch = -1;
        private String provider;
        private String operation;
        private String toolName;
        private String toolSchemaHash;
        private JsonNode input;
        private String summary;
        private String idempotencyKey;
        private String businessOperationId;
        private String conversationId;
        private String turnId;
        private Map<String, String> claimedAnnotations;
        private List<Attachment> attachments;
        private Instant proposedAt;

        private Builder() {
        }

        /** The task and the tool call's own id: the action key, the same on every redelivery of this call. */
        public Builder action(String taskId, String toolCallId) {
            this.taskId = taskId;
            this.toolCallId = toolCallId;
            return this;
        }

        public Builder taskVersion(long taskVersion) {
            this.taskVersion = taskVersion;
            return this;
        }

        /** From the tool host's authentication, never from the model's arguments. */
        public Builder identity(String orgId, String principalId) {
            this.orgId = orgId;
            this.principalId = principalId;
            return this;
        }

        public Builder profile(String profileId) {
            this.profileId = profileId;
            return this;
        }

        public Builder authorizationEpoch(long epoch) {
            this.authorizationEpoch = epoch;
            return this;
        }

        /** Which provider and operation run the effect, under which tool name and tool schema hash. */
        public Builder tool(String provider, String operation, String toolName, String toolSchemaHash) {
            this.provider = provider;
            this.operation = operation;
            this.toolName = toolName;
            this.toolSchemaHash = toolSchemaHash;
            return this;
        }

        /** The tool input, a JSON object. */
        public Builder input(JsonNode input) {
            this.input = input;
            return this;
        }

        /** The tool input as JSON text (a JSON object). */
        public Builder input(String inputJson) {
            if (inputJson == null) {
                throw new InvalidProposalException("input", "is required");
            }
            try {
                this.input = MAPPER.readTree(inputJson);
            } catch (JsonProcessingException e) {
                // never Jackson's message: it quotes the input
                throw new InvalidProposalException("input", "is not JSON: " + JsonErrors.describe(e));
            }
            return this;
        }

        /**
         * Plain language, at most {@link io.actiongate.contract.ContractLimits#SUMMARY_MAX_CHARS} characters: what the
         * approver reads.
         */
        public Builder summary(String summary) {
            this.summary = summary;
            return this;
        }

        /** Optional: when absent the gate derives a stable key from the action key. */
        public Builder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public Builder businessOperationId(String businessOperationId) {
            this.businessOperationId = businessOperationId;
            return this;
        }

        /** Optional: the conversation and turn that asked for the action (for {@code ORIGIN_REQUEST} tools). */
        public Builder origin(String conversationId, String turnId) {
            this.conversationId = conversationId;
            this.turnId = turnId;
            return this;
        }

        /** Optional, informational only: annotations the tool claims. The gate never trusts them. */
        public Builder claimedAnnotations(Map<String, String> annotations) {
            this.claimedAnnotations = annotations == null ? null : new LinkedHashMap<>(annotations);
            return this;
        }

        /** Optional: the staged files the call refers to; the gate checks each before admission. */
        public Builder attachments(List<Attachment> attachments) {
            this.attachments = attachments;
            return this;
        }

        /** Optional; defaults to the time of {@link ActionGateClient#propose}. */
        public Builder proposedAt(Instant proposedAt) {
            this.proposedAt = proposedAt;
            return this;
        }

        public ProposalRequest build() {
            return new ProposalRequest(this);
        }
    }
}
