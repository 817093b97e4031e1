package io.actiongate.digest;

import java.util.List;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;

/**
 * The frozen action a human approves (docs/contract.md section 3): exactly these fields, no more. The
 * {@code input} is the parsed {@code input_json}, so white space and member order in the proposal do not
 * change what is approved.
 */
public record FrozenAction(
        String taskId,
        String toolCallId,
        long taskVersion,
        String orgId,
        String principalId,
        String provider,
        String operation,
        String toolName,
        String inputJson,
        String summary,
        List<Attachment> attachments,
        long authorizationEpoch) {

    public FrozenAction {
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
    }

    public static FrozenAction of(ActionProposal p) {
        return new FrozenAction(p.getTaskId(), p.getToolCallId(), p.getTaskVersion(), p.getOrgId(),
                p.getPrincipalId(), p.getProvider(), p.getOperation(), p.getToolName(), p.getInputJson(),
                p.getSummary(), p.getAttachments(), p.getAuthorizationEpoch());
    }
}
