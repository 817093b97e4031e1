package io.actiongate.approver;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.Origin;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;

/** Proposals and the receipts the gate would publish for them, with real digests. */
public final class Fixtures {

    public static final String ORG = "demo";
    public static final String TO = "team@example.com";
    public static final String SUBJECT = "Summary of notes N-12 and N-17";
    public static final String BODY = "N-12 (launch checklist): legal review done, two blockers left.\n"
            + "N-17 (pricing): finance agrees on the new tiers; page copy due Friday.";
    public static final String SUMMARY = "Email team@example.com a summary of the two selected notes, N-12 and N-17";

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        io.actiongate.serde.AvroSetup.install();
    }

    private Fixtures() {
    }

    public static String emailInput(String to, String subject, String body) {
        ObjectNode n = JSON.createObjectNode();
        n.put("to", to);
        n.put("subject", subject);
        n.put("body", body);
        return n.toString();
    }

    public static ActionProposal email(String task, String call) {
        return email(task, call, ORG, emailInput(TO, SUBJECT, BODY), SUMMARY);
    }

    public static ActionProposal email(String task, String call, String org, String inputJson, String summary) {
        return ActionProposal.newBuilder()
                .setTaskId(task)
                .setToolCallId(call)
                .setTaskVersion(1)
                .setOrgId(org)
                .setPrincipalId("user-7")
                .setProfileId("assistant")
                .setAuthorizationEpoch(1)
                .setProvider("smtp")
                .setOperation("send_email")
                .setToolName("send_email")
                .setToolSchemaHash("sha256:demo-send-email-v1")
                .setInputJson(inputJson)
                .setInputDigest(Digests.inputDigest(inputJson))
                .setSummary(summary)
                .setOrigin(Origin.newBuilder().setConversationId("conv-9").setTurnId("turn-3")
                        .setHumanMessageId("msg-41").setAssistantMessageId(null).build())
                .setAttachments(List.of())
                .setProposedAt(Instant.parse("2026-11-30T22:00:00Z"))
                .build();
    }

    public static ActionProposal withAttachment(ActionProposal p) {
        return ActionProposal.newBuilder(p).setAttachments(List.of(Attachment.newBuilder()
                .setObjectKey("inv-1/notes/N-12.pdf").setSha256("ab".repeat(32)).setSizeBytes(48213)
                .setContentType("application/pdf").setOwnerInvocationId("inv-1").build())).build();
    }

    /** The receipt the gate publishes when it freezes {@code p} and waits for a human. */
    public static Receipt waiting(ActionProposal p, Instant at) {
        return receipt(p, ReceiptStatus.WAITING_APPROVAL, at);
    }

    public static Receipt receipt(ActionProposal p, ReceiptStatus status, Instant at) {
        return Receipt.newBuilder()
                .setTaskId(p.getTaskId())
                .setToolCallId(p.getToolCallId())
                .setStatus(status)
                .setOrgId(p.getOrgId())
                .setToolName(p.getToolName())
                .setProvider(p.getProvider())
                .setOperation(p.getOperation())
                .setInputDigest(Digests.inputDigest(p.getInputJson()))
                .setActionDigest(Digests.actionDigest(FrozenAction.of(p)))
                .setAttempts(List.of())
                .setUpdatedAt(at)
                .build();
    }

    /** The receipt of an action a person approved: it carries the approving decision's id from then on. */
    public static Receipt decided(ActionProposal p, ReceiptStatus status, Instant at) {
        return Receipt.newBuilder(receipt(p, status, at)).setDecisionId("d-" + p.getToolCallId()).build();
    }

    /** The identity conflict the gate publishes when {@code offered} arrives under the key it holds {@code held} on. */
    public static io.actiongate.avro.IdentityConflict conflict(ActionProposal held, ActionProposal offered,
                                                               Instant at) {
        return io.actiongate.avro.IdentityConflict.newBuilder()
                .setTaskId(held.getTaskId())
                .setToolCallId(held.getToolCallId())
                .setExistingDigest(Digests.actionDigest(FrozenAction.of(held)))
                .setOfferedDigest(Digests.actionDigest(FrozenAction.of(offered)))
                .setExistingTool(held.getProvider() + ":" + held.getToolName())
                .setOfferedTool(offered.getProvider() + ":" + offered.getToolName())
                .setDetectedAt(at)
                .build();
    }
}
