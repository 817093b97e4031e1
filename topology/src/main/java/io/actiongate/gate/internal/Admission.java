package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.Origin;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.contract.ContractLimits;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.digest.Jcs;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyChecks;
import io.actiongate.policy.Rejection;

/**
 * The checks of a proposal that do not depend on policy beyond its tool's size limit: identifiers, key, schema,
 * attachments, size, input digest and credential material. Order matters only for which code a record with
 * several defects gets; cheap checks come first and the input is parsed once, after the size check.
 */
public final class Admission {

    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    private final int summaryMaxChars;
    private final int defaultMaxInputBytes;
    private final CredentialCheck credentials;

    public Admission(int summaryMaxChars, int defaultMaxInputBytes, CredentialCheck credentials) {
        this.summaryMaxChars = summaryMaxChars;
        this.defaultMaxInputBytes = defaultMaxInputBytes;
        this.credentials = credentials;
    }

    /** Identifier and key checks: INVALID_IDENTIFIER, KEY_MISMATCH. */
    public Optional<Rejection> identity(String recordKey, ActionProposal p) {
        if (!ActionKey.isValid(p.getTaskId(), p.getToolCallId())) {
            return reject(ReasonCode.INVALID_IDENTIFIER, "task_id and tool_call_id must match "
                    + ContractLimits.ID_PATTERN.pattern());
        }
        if (!ActionKey.format(p.getTaskId(), p.getToolCallId()).equals(recordKey)) {
            return reject(ReasonCode.KEY_MISMATCH, "record key differs from task_id/tool_call_id");
        }
        return Optional.empty();
    }

    /** SCHEMA_INVALID and ATTACHMENT_INVALID. */
    public Optional<Rejection> schema(ActionProposal p) {
        String[][] required = {
            {"org_id", p.getOrgId()}, {"principal_id", p.getPrincipalId()}, {"profile_id", p.getProfileId()},
            {"provider", p.getProvider()}, {"operation", p.getOperation()}, {"tool_name", p.getToolName()},
            {"tool_schema_hash", p.getToolSchemaHash()}, {"input_digest", p.getInputDigest()},
            {"summary", p.getSummary()}, {"input_json", p.getInputJson()}};
        for (String[] field : required) {
            if (field[1] == null || field[1].isBlank()) {
                return reject(ReasonCode.SCHEMA_INVALID, field[0] + " is required");
            }
        }
        if (p.getTaskVersion() < 0 || p.getAuthorizationEpoch() < 0) {
            return reject(ReasonCode.SCHEMA_INVALID, "task_version and authorization_epoch must not be negative");
        }
        if (p.getSummary().length() > summaryMaxChars) {
            return reject(ReasonCode.SCHEMA_INVALID, "summary is longer than " + summaryMaxChars + " characters");
        }
        if (p.getIdempotencyKey() != null && (p.getIdempotencyKey().isBlank()
                || p.getIdempotencyKey().length() > 255)) {
            return reject(ReasonCode.SCHEMA_INVALID, "idempotency_key must be 1 to 255 characters when present");
        }
        Origin origin = p.getOrigin();
        if (origin != null && (origin.getConversationId().isBlank() || origin.getTurnId().isBlank())) {
            return reject(ReasonCode.SCHEMA_INVALID, "origin needs conversation_id and turn_id");
        }
        List<Attachment> attachments = p.getAttachments();
        for (int i = 0; i < attachments.size(); i++) {
            Optional<String> defect = attachmentDefect(attachments.get(i));
            if (defect.isPresent()) {
                return reject(ReasonCode.ATTACHMENT_INVALID, "attachments[" + i + "]: " + defect.get());
            }
        }
        return Optional.empty();
    }

    private static Optional<String> attachmentDefect(Attachment a) {
        String key = a.getObjectKey();
        if (key.isBlank()) {
            return Optional.of("object_key is required");
        }
        if (key.contains("://") || key.startsWith("/") || key.contains("..") || key.contains("\\")) {
            return Optional.of("object_key must be a relative object key, not a URL or path");
        }
        if (!SHA256_HEX.matcher(a.getSha256()).matches()) {
            return Optional.of("sha256 must be 64 lowercase hex digits");
        }
        if (a.getSizeBytes() < 0) {
            return Optional.of("size_bytes must not be negative");
        }
        if (a.getContentType().isBlank() || a.getOwnerInvocationId().isBlank()) {
            return Optional.of("content_type and owner_invocation_id are required");
        }
        return Optional.empty();
    }

    /**
     * What {@link #input} found: the input parsed (strictly: no duplicate member names) and its canonical (JCS)
     * UTF-8 bytes when it passed, otherwise the rejection. The parsed tree is what the credential scan uses and the
     * canonical bytes, hashed once for the input digest, are hashed again inside the action digest, so the input
     * is parsed and canonicalised once per proposal.
     */
    public record CheckedInput(JsonNode parsed, byte[] canonical, Rejection rejection) {

        public Optional<Rejection> refusal() {
            return Optional.ofNullable(rejection);
        }

        private static CheckedInput refused(ReasonCode code, String reason) {
            return new CheckedInput(null, null, new Rejection(code, reason));
        }
    }

    /** INPUT_TOO_LARGE against the tool's max_input_bytes (or the default), SCHEMA_INVALID, DIGEST_MISMATCH. */
    public CheckedInput input(ActionProposal p, Optional<ToolDescriptor> tool) {
        int limit = PolicyChecks.maxInputBytes(tool, defaultMaxInputBytes);
        String json = p.getInputJson();
        // a UTF-16 char encodes to at most 3 UTF-8 bytes: only long inputs need the exact count
        if ((long) json.length() * 3 > limit && json.getBytes(StandardCharsets.UTF_8).length > limit) {
            return CheckedInput.refused(ReasonCode.INPUT_TOO_LARGE, "input_json is larger than " + limit + " bytes");
        }
        JsonNode input;
        try {
            input = Jcs.parse(json);
        } catch (IllegalArgumentException e) {
            // the parser's message can quote the input: never pass it on
            return CheckedInput.refused(ReasonCode.SCHEMA_INVALID, "input_json is not valid JSON");
        }
        if (!input.isObject()) {
            return CheckedInput.refused(ReasonCode.SCHEMA_INVALID, "input_json must be a JSON object");
        }
        byte[] canonical = Jcs.canonicalize(input).getBytes(StandardCharsets.UTF_8);
        String digest = Digests.PREFIX + Digests.sha256Hex(canonical);
        if (!digest.equals(p.getInputDigest())) {
            return CheckedInput.refused(ReasonCode.DIGEST_MISMATCH,
                    "input_digest does not match the JCS SHA-256 of input_json");
        }
        return new CheckedInput(input, canonical, null);
    }

    /**
     * CREDENTIAL_MATERIAL: the reason names the detector, never the text. {@code parsedInput} is the tree
     * {@link #input} parsed from the same proposal (or null: the scan then parses the text itself).
     */
    public Optional<Rejection> credentials(ActionProposal p, JsonNode parsedInput) {
        return credentials.find(p.getInputJson(), parsedInput, p.getSummary())
                .map(where -> new Rejection(ReasonCode.CREDENTIAL_MATERIAL, "credential material: " + where));
    }

    private static Optional<Rejection> reject(ReasonCode code, String reason) {
        return Optional.of(new Rejection(code, reason));
    }
}
