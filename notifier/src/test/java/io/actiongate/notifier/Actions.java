package io.actiongate.notifier;

import java.time.Instant;
import java.util.List;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;

/** Proposals and the gate's receipts of them, as the topics carry them. */
final class Actions {

    static final String ORG = "acme";
    static final String PROFILE = "assistant";
    static final String TOOL = "send_email";
    /** A marker of the input body: no message may ever carry it. */
    static final String SECRET_BODY = "quarterly-numbers-INPUT-BODY-7731";
    static final String INPUT = "{\"to\":\"cfo@example.com\",\"subject\":\"Q3\",\"body\":\"" + SECRET_BODY + "\"}";

    private Actions() {
    }

    static ActionProposal proposal(String task, String call, String summary) {
        return ActionProposal.newBuilder().setTaskId(task).setToolCallId(call).setTaskVersion(1).setOrgId(ORG)
                .setPrincipalId("user-1").setProfileId(PROFILE).setAuthorizationEpoch(1).setProvider("smtp")
                .setOperation(TOOL).setToolName(TOOL).setToolSchemaHash("sha256:s").setInputJson(INPUT)
                .setInputDigest(Digests.inputDigest(INPUT)).setSummary(summary).setIdempotencyKey(null)
                .setBusinessOperationId(null).setOrigin(null).setAttachments(List.of()).setClaimedAnnotations(null)
                .setProposedAt(Instant.parse("2026-01-01T00:00:00Z")).build();
    }

    static Receipt receipt(ActionProposal p, ReceiptStatus status, Instant updatedAt) {
        return Receipt.newBuilder().setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId()).setStatus(status)
                .setReasonCode(null).setReason(null).setOrgId(p.getOrgId()).setToolName(p.getToolName())
                .setProvider(p.getProvider()).setOperation(p.getOperation()).setInputDigest(p.getInputDigest())
                .setActionDigest(Digests.actionDigest(FrozenAction.of(p))).setDecisionId(null)
                .setAttempts(List.of()).setProviderReceiptId(null).setResolvedBy(null).setUpdatedAt(updatedAt)
                .build();
    }

    static String key(ActionProposal p) {
        return ActionKey.format(p.getTaskId(), p.getToolCallId());
    }
}
