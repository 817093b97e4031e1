package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.LOOKUP;
import static io.actiongate.gate.GateDriver.PROVIDER;
import static io.actiongate.gate.GateDriver.SEND;
import static io.actiongate.gate.GateDriver.lookup;
import static io.actiongate.gate.GateDriver.proposal;
import static io.actiongate.gate.GateDriver.tool;
import static io.actiongate.gate.GateDriver.withInput;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Jcs;

/**
 * The gate classifies with the provider's own logic at admission and before each reservation (docs/contract.md
 * section 4, "Classification").
 */
class OperationClassificationTest {

    private static final String CLI = "cli";

    @TempDir
    Path stateDir;
    GateDriver gate;

    @AfterEach
    void stop() {
        if (gate != null) {
            gate.close();
        }
    }

    private GateDriver fake() {
        gate = GateDriver.start(stateDir).demoPolicy();
        return gate;
    }

    // ---- admission ----------------------------------------------------------------------------------------

    @Test
    void shouldRefuseAnOperationTheProviderRejectsForTouchingCredentials() {
        fake().classifiers.set(PROVIDER, LOOKUP, new Classification(Classification.Kind.REJECTED_AUTH_OR_CONFIG,
                "reads the token store"));
        gate.propose(lookup("c-1"));
        assertThat(gate.redactedOutputsAsText()).as("the connector's detail may quote the input")
                .noneMatch(s -> s.contains("token store"));
        assertLastObserved(ReceiptStatus.REJECTED, ReasonCode.OPERATION_REFUSED);
    }

    @Test
    void shouldHandTheAdmissionsParsedInputToTheClassifierAndTheValidator() {
        // the input is parsed once per proposal, by the admission; the provider reads that tree
        fake().propose(lookup("c-1"));
        assertThat(gate.lastReceipt().getStatus()).as("a trusted read, reserved at once")
                .isEqualTo(ReceiptStatus.DISPATCHING);
        assertThat(gate.classifiers.parsedInputs).as("classify, then validate, each given the admission's tree")
                .hasSize(2).allSatisfy(tree -> assertThat(tree).isEqualTo(Jcs.parse(lookup("c-1").getInputJson())));
        assertThat(gate.classifiers.parsedInputs.get(0)).isSameAs(gate.classifiers.parsedInputs.get(1));
    }

    @Test
    void shouldRefuseAnUnboundedOperation() {
        fake().classifiers.set(PROVIDER, LOOKUP, new Classification(Classification.Kind.REJECTED_UNBOUNDED, "watch"));
        assertRejected(lookup("c-1"), ReasonCode.OPERATION_REFUSED);
    }

    @Test
    void shouldTreatAnUnsupportedOperationAsUnknownProviderMethod() {
        fake().classifiers.set(PROVIDER, SEND, Classification.unsupported("not configured"));
        assertRejected(proposal("c-1"), ReasonCode.UNKNOWN_PROVIDER_METHOD);
    }

    @Test
    void shouldFailClosedWhenTheGateHasNoConnectorForTheProvider() {
        fake().classifiers.remove(PROVIDER);
        assertRejected(lookup("c-1"), ReasonCode.UNKNOWN_PROVIDER_METHOD);
        assertRejected(proposal("c-2"), ReasonCode.UNKNOWN_PROVIDER_METHOD);
    }

    @Test
    void shouldFailClosedWhenTheClassifierThrowsAndNeverQuoteTheInput() {
        fake().classifiers.throwing(PROVIDER, true);
        gate.propose(withInput(lookup("c-1"), "{\"q\":\"needle-7781\"}"));
        assertThat(gate.redactedOutputsAsText()).noneMatch(s -> s.contains("needle-7781"));
        assertLastObserved(ReceiptStatus.REJECTED, ReasonCode.UNKNOWN_PROVIDER_METHOD);
        assertThat(gate.deadLetters.isEmpty()).isTrue();
        assertThat(gate.attempts.isEmpty()).isTrue();
        // the partition keeps moving
        gate.classifiers.throwing(PROVIDER, false);
        gate.propose(lookup("c-2"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
    }

    @Test
    void shouldRejectAnInputTheProviderDoesNotValidate() {
        fake().classifiers.invalid(PROVIDER, SEND, "'to' must be an address of an allowed domain");
        assertRejected(proposal("c-1"), ReasonCode.SCHEMA_INVALID);
    }

    @Test
    void shouldNotAutoApproveAReadOnlyHintedToolTheProviderCallsAnEffect() {
        fake().classifiers.set(PROVIDER, LOOKUP, Classification.effect("configured in operations"));
        gate.propose(lookup("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldNotTrustAProviderReadWithoutReadOnlyHintUnlessItClassifiesPerInput() {
        fake().tool(tool(LOOKUP).setApproval(ApprovalMode.NONE).setReadOnlyHint(null).build());
        gate.propose(lookup("c-1"));
        assertThat(gate.lastReceipt().getStatus()).as("READ by operation name alone is no evidence")
                .isEqualTo(ReceiptStatus.WAITING_APPROVAL);

        gate.classifiers.perInput(PROVIDER);
        gate.propose(lookup("c-2"));
        assertThat(gate.lastReceipt().getStatus()).as("a per-input READ is").isEqualTo(ReceiptStatus.DISPATCHING);
    }

    @Test
    void shouldAdmitOnlyTrustedReadsOnAReadOnlyGrant() {
        fake().grant(GrantMode.READ_ONLY, true, SEND, LOOKUP);
        gate.propose(lookup("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
        gate.drain();
        gate.classifiers.set(PROVIDER, LOOKUP, Classification.effect("configured in operations"));
        assertRejected(lookup("c-2"), ReasonCode.READ_ONLY_MODE);
    }

    // ---- recheck before each reservation ------------------------------------------------------------------

    @Test
    void shouldRefuseAtTheRecheckWhenTheClassificationChangedBeforeTheApproval() {
        fake();
        ActionProposal p = gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        gate.classifiers.set(PROVIDER, SEND, new Classification(Classification.Kind.REJECTED_UNBOUNDED, "all"));
        gate.approve(p);
        Receipt last = gate.lastReceipt();
        assertThat(last.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(last.getReasonCode()).isEqualTo(ReasonCode.OPERATION_REFUSED.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseARetryWhoseOperationBecameUnsupported() {
        fake();
        ActionProposal p = gate.propose(proposal("c-1"));
        gate.approve(p);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE));
        gate.classifiers.set(PROVIDER, SEND, Classification.unsupported("removed from operations"));
        gate.advance(Duration.ofMinutes(2));
        Receipt last = gate.lastReceipt();
        assertThat(last.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(last.getReasonCode()).isEqualTo(ReasonCode.UNKNOWN_PROVIDER_METHOD.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldNotRetryAnAutoApprovedReadThatTheProviderNowCallsAnEffect() {
        fake();
        ActionProposal p = gate.propose(lookup("c-1"));
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        gate.report(gate.outcome(p, 1, OutcomeStatus.RETRYABLE));
        gate.classifiers.set(PROVIDER, LOOKUP, Classification.effect("moved to operations"));
        gate.advance(Duration.ofMinutes(2));
        Receipt last = gate.lastReceipt();
        assertThat(last.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(last.getReasonCode()).isEqualTo(ReasonCode.OPERATION_REFUSED.name());
        assertThat(gate.attempts.isEmpty()).as("no effect without a human").isTrue();
    }

    // ---- the real CLI classifier, through OperationClassifiers.of(registry) --------------------------------

    private GateDriver cli() {
        ConnectorRegistry registry = ConnectorRegistry.load(Map.of("connectors.cli.enabled", "true"));
        gate = GateDriver.start(stateDir, OperationClassifiers.of(registry));
        gate.demoPolicy();
        gate.grant(GrantMode.FULL_ACCESS, true, SEND, LOOKUP, "kubectl", "gh");
        gate.integration(CLI, true);
        gate.tool(tool("kubectl").setProvider(CLI).setApproval(ApprovalMode.NONE).setReadOnlyHint(null).build());
        gate.tool(tool("gh").setProvider(CLI).setApproval(ApprovalMode.NONE).setReadOnlyHint(null).build());
        return gate;
    }

    private static ActionProposal.Builder cliCall(String call, String tool, String argvJson) {
        return withInput(proposal(call).setProvider(CLI).setOperation(tool).setToolName(tool),
                "{\"argv\":" + argvJson + "}").setIdempotencyKey("idem-" + call);
    }

    @Test
    void shouldRunACliReadWithoutApproval() {
        cli().propose(cliCall("c-1", "kubectl", "[\"kubectl\",\"-n\",\"prod\",\"get\",\"pods\"]"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
    }

    @Test
    void shouldMakeACliEffectWaitForAHuman() {
        cli().propose(cliCall("c-1", "kubectl", "[\"kubectl\",\"-n\",\"prod\",\"delete\",\"pod\",\"web-1\"]"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        assertThat(gate.attempts.isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseCliConfigAndWatchCommands() {
        cli();
        assertRejected(cliCall("c-1", "kubectl", "[\"kubectl\",\"config\",\"view\"]"), ReasonCode.OPERATION_REFUSED);
        assertRejected(cliCall("c-2", "kubectl", "[\"kubectl\",\"get\",\"pods\",\"-w\"]"),
                ReasonCode.OPERATION_REFUSED);
    }

    @Test
    void shouldRejectACliEffectWithoutIdempotencyKeyOrSummary() {
        cli();
        assertRejected(cliCall("c-1", "gh", "[\"gh\",\"pr\",\"merge\",\"12\"]").setIdempotencyKey(null),
                ReasonCode.SCHEMA_INVALID);
        gate.propose(cliCall("c-2", "gh", "[\"gh\",\"pr\",\"merge\",\"12\"]"));
        assertThat(gate.lastReceipt().getStatus()).as("with a key it waits for a human")
                .isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldRejectMalformedCliInputWithoutCrashingOrReserving() {
        cli();
        assertRejected(cliCall("c-1", "kubectl", "\"kubectl get pods\""), ReasonCode.UNKNOWN_PROVIDER_METHOD);
        assertRejected(cliCall("c-2", "kubectl", "[\"kubectl\",\"get\",\"pods\\u0007\"]"),
                ReasonCode.UNKNOWN_PROVIDER_METHOD);
        assertRejected(cliCall("c-3", "kubectl", "[\"gh\",\"pr\",\"list\"]"), ReasonCode.UNKNOWN_PROVIDER_METHOD);
        assertThat(gate.deadLetters.isEmpty()).isTrue();
        gate.propose(cliCall("c-4", "kubectl", "[\"kubectl\",\"get\",\"pods\"]"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
    }

    @Test
    void shouldTreatAProviderWithoutConnectorAsUnknownEvenWithADescriptor() {
        ConnectorRegistry registry = ConnectorRegistry.load(Map.of("connectors.cli.enabled", "true"));
        gate = GateDriver.start(stateDir, OperationClassifiers.of(registry));
        gate.demoPolicy();
        assertRejected(lookup("c-1"), ReasonCode.UNKNOWN_PROVIDER_METHOD);
    }

    private void assertLastObserved(ReceiptStatus status, ReasonCode code) {
        Receipt r = gate.observedReceipts.get(gate.observedReceipts.size() - 1);
        assertThat(r.getStatus()).isEqualTo(status);
        assertThat(r.getReasonCode()).isEqualTo(code.name());
    }

    private void assertRejected(ActionProposal.Builder p, ReasonCode code) {
        gate.propose(p);
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r.getReasonCode()).isEqualTo(code.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }
}
