package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.LOOKUP;
import static io.actiongate.gate.GateDriver.SEND;
import static io.actiongate.gate.GateDriver.proposal;
import static io.actiongate.gate.GateDriver.tool;
import static io.actiongate.gate.GateDriver.withInput;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;

/** Admission (docs/contract.md section 4): each failed check is a REJECTED receipt with its code and nothing else. */
class AdmissionTest {

    @TempDir
    Path stateDir;
    GateDriver gate;

    @BeforeEach
    void start() {
        gate = GateDriver.start(stateDir).demoPolicy();
    }

    @AfterEach
    void stop() {
        gate.close();
    }

    private void assertRejected(ActionProposal.Builder proposal, ReasonCode code) {
        ActionProposal p = proposal.build();
        gate.proposals.pipeInput(GateDriver.key(p), p);
        List<Receipt> receipts = gate.receipts();
        assertThat(receipts).hasSize(1);
        assertThat(receipts.get(0).getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(receipts.get(0).getReasonCode()).isEqualTo(code.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
        assertThat(gate.conflicts.isEmpty()).isTrue();
    }

    @Test
    void shouldAdmitTheValidDemoProposalToWaitForApproval() {
        gate.propose(proposal("c-1"));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        assertThat(r.getReasonCode()).isNull();
        assertThat(r.getActionDigest()).isEqualTo(GateDriver.actionDigest(proposal("c-1").build()));
    }

    @Test
    void shouldRejectInvalidIdentifierUnderAValidRecordKey() {
        ActionProposal p = proposal("bad id!").build();
        gate.proposals.pipeInput("T-1/c-1", p);
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.INVALID_IDENTIFIER.name());
        assertThat(r.getToolCallId()).isEqualTo("c-1");
    }

    @Test
    void shouldRejectKeyMismatch() {
        ActionProposal p = proposal("c-1").build();
        gate.proposals.pipeInput("T-1/c-2", p);
        Receipt r = gate.lastReceipt();
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.KEY_MISMATCH.name());
        assertThat(r.getToolCallId()).isEqualTo("c-2");
        // not held: the real proposal for T-1/c-2 is still admitted afterwards
        gate.propose(proposal("c-2"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldDeadLetterAProposalWhoseRecordKeyIsNoActionKey() {
        ActionProposal p = proposal("c-1").build();
        gate.proposals.pipeInput("not-an-action-key", p);
        assertThat(gate.receipts()).isEmpty();
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.KEY_MISMATCH.name());
    }

    @Test
    void shouldRejectSummaryLongerThan280Characters() {
        assertRejected(proposal("c-1").setSummary("x".repeat(281)), ReasonCode.SCHEMA_INVALID);
    }

    @Test
    void shouldRejectInputThatIsNotAJsonObject() {
        assertRejected(withInput(proposal("c-1"), "[1,2]"), ReasonCode.SCHEMA_INVALID);
    }

    @Test
    void shouldRejectInputThatIsNotJson() {
        assertRejected(proposal("c-1").setInputJson("{not json").setInputDigest("sha256:00"),
                ReasonCode.SCHEMA_INVALID);
    }

    @Test
    void shouldRejectBlankRequiredField() {
        assertRejected(proposal("c-1").setPrincipalId(" "), ReasonCode.SCHEMA_INVALID);
    }

    @Test
    void shouldRejectInputLargerThanTheToolsLimit() {
        gate.tool(tool(SEND).setMaxInputBytes(32).build());
        assertRejected(proposal("c-1"), ReasonCode.INPUT_TOO_LARGE);
    }

    @Test
    void shouldApplyTheDefaultInputLimitWhenTheDescriptorGivesNone() {
        gate.close();
        gate = GateDriver.start(stateDir, java.util.Map.of(GateConfig.MAX_INPUT_BYTES_DEFAULT_CONFIG, "40"))
                .demoPolicy();
        gate.tool(tool(SEND).setMaxInputBytes(0).build());
        assertRejected(proposal("c-1"), ReasonCode.INPUT_TOO_LARGE);
    }

    @Test
    void shouldRejectDigestMismatch() {
        assertRejected(proposal("c-1").setInputDigest(io.actiongate.digest.Digests.inputDigest("{}")),
                ReasonCode.DIGEST_MISMATCH);
    }

    @Test
    void shouldRejectToolWithoutDescriptor() {
        assertRejected(proposal("c-1").setToolName("delete_everything").setOperation("delete_everything"),
                ReasonCode.UNKNOWN_PROVIDER_METHOD);
    }

    @Test
    void shouldRejectOperationThatDiffersFromTheDescriptor() {
        assertRejected(proposal("c-1").setOperation("send_sms"), ReasonCode.UNKNOWN_PROVIDER_METHOD);
    }

    @Test
    void shouldRejectDisabledTool() {
        gate.tool(tool(SEND).setEnabled(false).build());
        assertRejected(proposal("c-1"), ReasonCode.TOOL_DISABLED);
    }

    @Test
    void shouldRejectChangedToolSchema() {
        gate.tool(tool(SEND).setSchemaHash("sha256:schema-v2").build());
        assertRejected(proposal("c-1"), ReasonCode.TOOL_SCHEMA_CHANGED);
    }

    @Test
    void shouldRejectDisabledIntegration() {
        gate.integration(false);
        assertRejected(proposal("c-1"), ReasonCode.INTEGRATION_DISABLED);
    }

    @Test
    void shouldCountMissingIntegrationAsDisabled() {
        gate.deletePolicy("integration:acme:webhook");
        assertRejected(proposal("c-1"), ReasonCode.INTEGRATION_DISABLED);
    }

    @Test
    void shouldRejectToolOutsideTheGrant() {
        gate.grant(GrantMode.FULL_ACCESS, true, LOOKUP);
        assertRejected(proposal("c-1"), ReasonCode.PROFILE_NOT_GRANTED);
    }

    @Test
    void shouldRejectProfileWithoutGrant() {
        gate.deletePolicy("grant:acme:chat-default");
        assertRejected(proposal("c-1"), ReasonCode.PROFILE_NOT_GRANTED);
    }

    @Test
    void shouldRejectConsequentialToolInReadOnlyMode() {
        gate.grant(GrantMode.READ_ONLY, true, SEND, LOOKUP);
        assertRejected(proposal("c-1"), ReasonCode.READ_ONLY_MODE);
    }

    @Test
    void shouldAdmitReadOnlyToolInReadOnlyMode() {
        gate.grant(GrantMode.READ_ONLY, true, SEND, LOOKUP);
        gate.propose(GateDriver.lookup("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
    }

    @Test
    void shouldRejectOtherTaskVersion() {
        assertRejected(proposal("c-1").setTaskVersion(2), ReasonCode.TASK_VERSION_CHANGED);
    }

    @Test
    void shouldRefuseATaskWithoutTaskStateWithoutHoldingTheKey() {
        // nobody is known to own the task yet: a receipt or a held key would let any org pre-occupy it
        gate.deletePolicy("task:T-1");
        gate.propose(proposal("c-1"));
        assertThat(gate.receipts()).isEmpty();
        assertThat(gate.deadLetters.readValue().getReasonCode()).isEqualTo(ReasonCode.TASK_VERSION_CHANGED.name());
        assertThat(gate.heldAction("T-1/c-1")).isNull();
        gate.task("T-1", 1, LifecycleStatus.ACTIVE);
        gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldRejectCancelledTask() {
        gate.task("T-1", 1, LifecycleStatus.CANCELLED);
        assertRejected(proposal("c-1"), ReasonCode.TASK_CANCELLED);
    }

    @Test
    void shouldRejectArchivedOrigin() {
        gate.origin(LifecycleStatus.ARCHIVED, GateDriver.TURN);
        assertRejected(proposal("c-1").setOrigin(GateDriver.origin(GateDriver.TURN)), ReasonCode.ORIGIN_CANCELLED);
    }

    @Test
    void shouldRejectOtherAuthorizationEpoch() {
        gate.epoch(2);
        assertRejected(proposal("c-1"), ReasonCode.AUTHORIZATION_EPOCH_CHANGED);
    }

    @Test
    void shouldRejectOrgWithoutAuthorizationEpoch() {
        gate.deletePolicy("epoch:acme");
        assertRejected(proposal("c-1"), ReasonCode.AUTHORIZATION_EPOCH_CHANGED);
    }

    @Test
    void shouldRejectCredentialMaterialInInputNamingTheDetectorOnly() {
        ActionProposal p = withInput(proposal("c-1"),
                "{\"to\":\"ops@example.com\",\"note\":\"AKIAIOSFODNN7EXAMPLE\"}").build();
        gate.proposals.pipeInput(GateDriver.key(p), p);
        Receipt r = gate.lastReceipt();
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.CREDENTIAL_MATERIAL.name());
        assertThat(r.getReason()).contains("detector").contains("input_json")
                .doesNotContain("AKIA").doesNotContain("note");
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRejectAPasswordAssignmentInInput() {
        assertRejected(withInput(proposal("c-1"), "{\"to\":\"ops@example.com\",\"password\":\"hunter2Xq9!zP4r#\"}"),
                ReasonCode.CREDENTIAL_MATERIAL);
    }

    @Test
    void shouldRejectCredentialMaterialInSummary() {
        assertRejected(proposal("c-1").setSummary("use key AKIAIOSFODNN7EXAMPLE"), ReasonCode.CREDENTIAL_MATERIAL);
    }

    @Test
    void shouldRejectAttachmentWithBadSha256() {
        assertRejected(proposal("c-1").setAttachments(List.of(attachment().setSha256("XYZ").build())),
                ReasonCode.ATTACHMENT_INVALID);
    }

    @Test
    void shouldRejectAttachmentWithNegativeSize() {
        assertRejected(proposal("c-1").setAttachments(List.of(attachment().setSizeBytes(-1).build())),
                ReasonCode.ATTACHMENT_INVALID);
    }

    @Test
    void shouldRejectAttachmentThatIsAnUploadUrl() {
        assertRejected(proposal("c-1").setAttachments(List.of(attachment()
                .setObjectKey("https://uploads.example/x?sig=abc").build())), ReasonCode.ATTACHMENT_INVALID);
    }

    @Test
    void shouldRejectWellFormedAttachmentWhenNoObjectStorageCanVerifyIt() {
        // fail closed: without storage.enabled the gate cannot verify the object, so it is not admitted
        assertRejected(proposal("c-1").setAttachments(List.of(attachment().build())), ReasonCode.ATTACHMENT_INVALID);
    }

    static Attachment.Builder attachment() {
        return Attachment.newBuilder().setObjectKey("uploads/report.pdf").setSha256("a".repeat(64))
                .setSizeBytes(1024).setContentType("application/pdf").setOwnerInvocationId("inv-1");
    }
}
