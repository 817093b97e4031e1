package io.actiongate.digest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.avro.Attachment;

/** The {@code input_digest} and {@code action_digest} of docs/contract.md section 3. */
public final class Digests {

    public static final String PREFIX = "sha256:";

    private Digests() {
    }

    /** {@code "sha256:" + hex(SHA-256(JCS(input)))}; throws {@link IllegalArgumentException} for invalid JSON. */
    public static String inputDigest(String inputJson) {
        return PREFIX + sha256Hex(Jcs.canonicalBytes(inputJson));
    }

    /** The digest a human approves: the same hash over the JCS of the frozen action object. */
    public static String actionDigest(FrozenAction action) {
        return actionDigest(action, null);
    }

    /**
     * {@link #actionDigest(FrozenAction)} given {@code parsedInput}, the {@link Jcs#parse} of the action's
     * {@code input_json} that the caller holds already (null: it is parsed here). The tree is not modified.
     */
    public static String actionDigest(FrozenAction action, JsonNode parsedInput) {
        return PREFIX + sha256Hex(Jcs.canonicalize(frozenActionJson(action, parsedInput))
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The frozen action as the JSON object that is hashed. */
    public static JsonNode frozenActionJson(FrozenAction a) {
        return frozenActionJson(a, null);
    }

    private static JsonNode frozenActionJson(FrozenAction a, JsonNode parsedInput) {
        ObjectNode node = Jcs.mapper().createObjectNode();
        node.put("task_id", a.taskId());
        node.put("tool_call_id", a.toolCallId());
        node.put("task_version", a.taskVersion());
        node.put("org_id", a.orgId());
        node.put("principal_id", a.principalId());
        node.put("provider", a.provider());
        node.put("operation", a.operation());
        node.put("tool_name", a.toolName());
        node.set("input", parsedInput != null ? parsedInput : Jcs.parse(a.inputJson()));
        node.put("summary", a.summary());
        ArrayNode attachments = node.putArray("attachments");
        for (Attachment at : a.attachments()) {
            ObjectNode o = attachments.addObject();
            o.put("object_key", at.getObjectKey());
            o.put("sha256", at.getSha256());
            o.put("size_bytes", at.getSizeBytes());
            o.put("content_type", at.getContentType());
            o.put("owner_invocation_id", at.getOwnerInvocationId());
        }
        node.put("authorization_epoch", a.authorizationEpoch());
        return node;
    }

    public static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
