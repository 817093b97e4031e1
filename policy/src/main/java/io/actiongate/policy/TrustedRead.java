package io.actiongate.policy;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.ToolDescriptor;

/**
 * The one trusted-read rule (docs/contract.md section 4, "Classification"): what lets an action run without a
 * human. Only the operator's trusted {@link ToolDescriptor} and the provider's own classification count, never the
 * proposal's claimed annotations. The gate asks it at admission and before every reservation; the MCP gateway asks
 * it before it calls an upstream without a proposal, where the descriptor is the only evidence (an MCP tool is opaque
 * to its connector).
 */
public final class TrustedRead {

    private TrustedRead() {
    }

    /** Only an explicit {@code read_only_hint=true} counts; null or false is consequential. */
    public static boolean readOnlyHint(ToolDescriptor tool) {
        return Boolean.TRUE.equals(tool.getReadOnlyHint());
    }

    /**
     * Whether a provider's {@code READ} classification is trusted read evidence: when the provider classifies per
     * input (it looked at this input), or when the trusted descriptor says {@code read_only_hint=true}.
     */
    public static boolean evidence(boolean classifiedRead, boolean classifiesPerInput, ToolDescriptor tool) {
        return classifiedRead && (classifiesPerInput || readOnlyHint(tool));
    }

    /** Whether a trusted read of {@code tool} runs without a human: the descriptor's approval is {@code NONE}. */
    public static boolean needsNobody(ToolDescriptor tool, boolean trustedRead) {
        return trustedRead && tool.getApproval() == ApprovalMode.NONE;
    }

    /**
     * The whole rule on the descriptor alone, for a caller with no classifier of its own (the MCP gateway): the tool
     * is enabled, its schema is the one the operator trusted, its descriptor says it only reads, and it needs nobody.
     * The gate refuses a disabled tool or a changed schema before it asks {@link #evidence} and {@link #needsNobody}.
     */
    public static boolean byDescriptor(ToolDescriptor tool, String currentSchemaHash) {
        return tool.getEnabled() && tool.getSchemaHash().equals(currentSchemaHash)
                && needsNobody(tool, evidence(true, false, tool));
    }
}
