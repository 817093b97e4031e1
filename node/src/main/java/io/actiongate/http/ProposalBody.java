package io.actiongate.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.client.ProposalRequest;
import io.actiongate.contract.ContractLimits;
import io.actiongate.digest.Digests;
import io.actiongate.json.JsonErrors;
import io.actiongate.key.ActionKey;

/**
 * The JSON body of {@code POST /v1/proposals}, checked member by member before anything is published: one JSON
 * object, no duplicate key at any depth, only the members below, ids of the id alphabet, {@code input} an object.
 * The identity ({@code org_id}, {@code principal_id}, {@code profile_id}) and {@code authorization_epoch} are not
 * members: they come from the caller's credential and the policy topic.
 */
final class ProposalBody {

    static final Set<String> MEMBERS = Set.of("task_id", "tool_call_id", "task_version", "provider", "operation",
            "tool_name", "tool_schema_hash", "input", "input_digest", "summary", "idempotency_key",
            "business_operation_id", "origin", "attachments", "claimed_annotations");
    private static final Set<String> ORIGIN_MEMBERS = Set.of("conversation_id", "turn_id");
    private static final Set<String> ATTACHMENT_MEMBERS = Set.of("object_key", "sha256", "size_bytes",
            "content_type", "owner_invocation_id");

    private static final java.util.regex.Pattern DIGEST_FORM = java.util.regex.Pattern.compile("sha256:[0-9a-f]{64}");

    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** The checked body: the request without identity, epoch and task version, which the caller adds. */
    record Parsed(String taskId, String toolCallId, OptionalLong taskVersion, ProposalRequest.Builder request,
            String inputDigest) {
    }

    private ProposalBody() {
    }

    static Parsed parse(byte[] body) throws ProposalBodyException {
        JsonNode root;
        try {
            root = STRICT.readTree(body);
        } catch (JacksonException e) {
            // the kind and the position only: Jackson's message quotes the input, which may hold a credential
            if (JsonErrors.kind(e) == JsonErrors.Kind.DUPLICATE_MEMBER) {
                throw new ProposalBodyException(ProposalRefusal.DUPLICATE_KEY, null, JsonErrors.describe(e),
                        e.getLocation());
            }
            throw new ProposalBodyException(ProposalRefusal.INVALID_JSON, null, "not JSON: " + JsonErrors.describe(e),
                    e.getLocation());
        } catch (IOException e) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_JSON, null, "cannot read the body");
        }
        if (root == null || !root.isObject()) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_JSON, null, "the body must be a JSON object");
        }
        onlyMembers(body, root, MEMBERS, "");
        String taskId = id(root, "task_id");
        String toolCallId = id(root, "tool_call_id");
        JsonNode input = root.get("input");
        if (input == null || input.isNull()) {
            throw new ProposalBodyException(ProposalRefusal.MISSING_MEMBER, "input", "input is required");
        }
        if (!input.isObject()) {
            throw new ProposalBodyException(ProposalRefusal.INPUT_NOT_OBJECT, "input",
                    "input must be a JSON object, was " + input.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        String computed;
        try {
            computed = Digests.inputDigest(STRICT.writeValueAsString(input));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "input",
                    "input cannot be canonicalized (RFC 8785): a number out of range?");
        }
        String offered = optionalText(root, "input_digest");
        if (offered != null && !offered.equals(computed)) {
            // the offered value is echoed only in the digest form, which no credential has
            boolean digestForm = DIGEST_FORM.matcher(offered).matches();
            throw new ProposalBodyException(ProposalRefusal.DIGEST_MISMATCH, "input_digest",
                    digestForm ? "input_digest is not the RFC 8785 digest of input"
                            : "input_digest is not a digest (sha256:<64 hex digits>)",
                    computed, digestForm ? offered : null);
        }
        OptionalLong taskVersion = OptionalLong.empty();
        JsonNode version = root.get("task_version");
        if (version != null && !version.isNull()) {
            if (!version.canConvertToExactIntegral() || !version.canConvertToLong() || version.asLong() < 0) {
                throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "task_version",
                        "task_version must be a non-negative integer");
            }
            taskVersion = OptionalLong.of(version.asLong());
        }
        String summary = requiredText(root, "summary");
        if (summary.length() > ContractLimits.SUMMARY_MAX_CHARS) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "summary",
                    "summary must be at most " + ContractLimits.SUMMARY_MAX_CHARS + " characters");
        }
        ProposalRequest.Builder request = ProposalRequest.builder()
                .action(taskId, toolCallId)
                .tool(requiredText(root, "provider"), requiredText(root, "operation"), requiredText(root, "tool_name"),
                        requiredText(root, "tool_schema_hash"))
                .input(input)
                .summary(summary)
                .idempotencyKey(optionalText(root, "idempotency_key"))
                .businessOperationId(optionalText(root, "business_operation_id"))
                .claimedAnnotations(annotations(root))
                .attachments(attachments(body, root));
        JsonNode origin = root.get("origin");
        if (origin != null && !origin.isNull()) {
            if (!origin.isObject()) {
                throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "origin", "origin must be an object");
            }
            onlyMembers(body, origin, ORIGIN_MEMBERS, "origin.");
            request.origin(requiredText(origin, "conversation_id", "origin.conversation_id"),
                    requiredText(origin, "turn_id", "origin.turn_id"));
        }
        return new Parsed(taskId, toolCallId, taskVersion, request, computed);
    }

    /**
     * Refuses a member of {@code object} (at {@code path}: "", "origin.", "attachments[0].") that is not in
     * {@code allowed}. The answer gives where the member is and which members the object takes, never its name: a
     * member name is input the credential scan has not passed.
     */
    private static void onlyMembers(byte[] body, JsonNode object, Set<String> allowed, String path)
            throws ProposalBodyException {
        Iterator<String> names = object.fieldNames();
        int index = 0;
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                String holder = path.isEmpty() ? null : path.substring(0, path.length() - 1);
                JsonLocation at = memberLocation(body, pointer(path), index);
                String where = JsonErrors.position(at);
                throw new ProposalBodyException(ProposalRefusal.UNKNOWN_MEMBER, holder,
                        "unknown member " + (where.isEmpty() ? "" : "at " + where + " ")
                                + (holder == null ? "of the body" : "of " + holder) + " (it takes "
                                + String.join(", ", new java.util.TreeSet<>(allowed)) + ")", at);
            }
            index++;
        }
    }

    /** The JSON pointer of an object at {@code path} ("" the body, "origin." /origin, "attachments[0]." ...). */
    private static String pointer(String path) {
        if (path.isEmpty()) {
            return "";
        }
        return "/" + path.substring(0, path.length() - 1).replace("[", "/").replace("]", "").replace(".", "/");
    }

    /** Where the {@code index}-th member name of the object at {@code pointer} starts, by a second streaming read. */
    private static JsonLocation memberLocation(byte[] body, String pointer, int index) {
        try (JsonParser p = STRICT.getFactory().createParser(body)) {
            int seen = 0;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME
                        && p.getParsingContext().getParent().pathAsPointer().toString().equals(pointer)) {
                    if (seen++ == index) {
                        return p.currentTokenLocation();
                    }
                }
            }
        } catch (IOException e) {
            return null; // the body parsed once already: no position then, and still no text
        }
        return null;
    }

    private static String id(JsonNode root, String member) throws ProposalBodyException {
        String value = requiredText(root, member);
        if (!ActionKey.isValidId(value)) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_ID, member,
                    member + " must match " + ContractLimits.ID_PATTERN.pattern());
        }
        return value;
    }

    private static String requiredText(JsonNode object, String member) throws ProposalBodyException {
        return requiredText(object, member, member);
    }

    private static String requiredText(JsonNode object, String member, String path) throws ProposalBodyException {
        JsonNode value = object.get(member);
        if (value == null || value.isNull() || (value.isTextual() && value.asText().isBlank())) {
            throw new ProposalBodyException(ProposalRefusal.MISSING_MEMBER, path, path + " is required");
        }
        if (!value.isTextual()) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, path, path + " must be a string");
        }
        return value.asText();
    }

    private static String optionalText(JsonNode object, String member) throws ProposalBodyException {
        JsonNode value = object.get(member);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, member,
                    member + " must be a non-blank string when present");
        }
        return value.asText();
    }

    private static Map<String, String> annotations(JsonNode root) throws ProposalBodyException {
        JsonNode value = root.get("claimed_annotations");
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "claimed_annotations",
                    "claimed_annotations must be an object of strings");
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            if (!e.getValue().isTextual()) {
                // the annotation's name is input: not echoed
                throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "claimed_annotations",
                        "claimed_annotations values must be strings");
            }
            annotations.put(e.getKey(), e.getValue().asText());
        }
        return annotations;
    }

    private static List<ProposalRequest.Attachment> attachments(byte[] body, JsonNode root)
            throws ProposalBodyException {
        JsonNode value = root.get("attachments");
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "attachments",
                    "attachments must be an array");
        }
        List<ProposalRequest.Attachment> attachments = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode a = value.get(i);
            String path = "attachments[" + i + "].";
            if (!(a instanceof ObjectNode)) {
                throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, "attachments[" + i + "]",
                        "each attachment must be an object");
            }
            onlyMembers(body, a, ATTACHMENT_MEMBERS, path);
            JsonNode size = a.get("size_bytes");
            if (size == null || !size.canConvertToExactIntegral() || !size.canConvertToLong() || size.asLong() < 0) {
                throw new ProposalBodyException(ProposalRefusal.INVALID_MEMBER, path + "size_bytes",
                        path + "size_bytes must be a non-negative integer");
            }
            attachments.add(new ProposalRequest.Attachment(requiredText(a, "object_key", path + "object_key"),
                    requiredText(a, "sha256", path + "sha256"), size.asLong(),
                    requiredText(a, "content_type", path + "content_type"),
                    requiredText(a, "owner_invocation_id", path + "owner_invocation_id")));
        }
        return attachments;
    }
}
