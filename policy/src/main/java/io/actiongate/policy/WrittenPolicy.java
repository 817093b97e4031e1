package io.actiongate.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.Grant;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ToolDescriptor;

/**
 * What a writer of policy records (mcp import, the dev kit) reads back of the records it wrote: the key a descriptor
 * is published under, what it trusts, a grant widened by more tools. Reading a policy body decides who may do what,
 * so even a writer reads one here, next to the rules that read it.
 */
public final class WrittenPolicy {

    private WrittenPolicy() {
    }

    /** The policy key {@code tool:PROVIDER:TOOL} the descriptor is published under. */
    public static String key(ToolDescriptor tool) {
        return PolicyKey.toolKey(tool.getProvider(), tool.getToolName());
    }

    /** The descriptor's tool name. */
    public static String toolName(ToolDescriptor tool) {
        return tool.getToolName();
    }

    /** Whether a trusted read of the tool runs without a human (approval {@code NONE}). */
    public static boolean approvalNone(ToolDescriptor tool) {
        return tool.getApproval() == ApprovalMode.NONE;
    }

    /** One line for the operator: the key, approval, {@code read_only_hint} and schema hash of the descriptor. */
    public static String describe(ToolDescriptor tool) {
        return key(tool) + " approval=" + tool.getApproval() + " read_only_hint=" + tool.getReadOnlyHint()
                + " schema_hash=" + tool.getSchemaHash();
    }

    /**
     * When {@code record} is the grant of {@code profileId}: the record with its grant widened by {@code tools}, or
     * {@code record} itself when it grants all of them already. Empty for another body or another profile.
     */
    public static Optional<PolicyRecord> widenedGrant(PolicyRecord record, String profileId, Set<String> tools) {
        if (!(record.getBody() instanceof Grant g) || !g.getProfileId().equals(profileId)) {
            return Optional.empty();
        }
        Set<String> all = new LinkedHashSet<>(g.getTools());
        if (all.containsAll(tools)) {
            return Optional.of(record);
        }
        all.addAll(tools);
        Grant widened = Grant.newBuilder(g).setTools(new ArrayList<>(all)).build();
        return Optional.of(PolicyRecord.newBuilder(record).setBody(widened).build());
    }
}
