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

    /** Where the input goes in the canonical frozen action hashed with the input left out (a JSON null there). */
    private static final String INPUT_SLOT = "\"input\":null";
    private static final int INPUT_VALUE_AT = "\"input\":".length();

    /**
     * {@link #actionDigest(FrozenAction)} given {@code canonicalInput}, the JCS UTF-8 bytes of the action's input that
     * the caller computed already for its input digest: the input is canonicalised once for both digests. The
     * frozen action is canonicalised with a null input and the bytes are hashed in its place, which is the same
     * octets as the whole object's JCS ({@code "input":null} can occur only there: a string value escapes its
     * quotes).
     */
    public static String actionDigestOfCanonicalInput(FrozenAction action, byte[] canonicalInput) {
        String frame = Jcs.canonicalize(frozenActionJson(action, com.fasterxml.jackson.databind.node.NullNode
                .getInstance()));
        int slot = frame.indexOf(INPUT_SLOT);
        if (slot < 0) {
            throw new IllegalStateException("the frozen action has no input member");
        }
        MessageDigest sha256 = sha256();
        sha256.update(frame.substring(0, slot + INPUT_VALUE_AT).getBytes(StandardCharsets.UTF_8));
        sha256.update(canonicalInput);
        sha256.update(frame.substring(slot + INPUT_SLOT.length()).getBytes(StandardCharsets.UTF_8));
        return PREFIX + HexFormat.of().formatHex(sha256.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
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
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }
}
