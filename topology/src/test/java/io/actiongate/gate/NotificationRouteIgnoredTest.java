package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.ORG;
import static io.actiongate.gate.GateDriver.PROVIDER;
import static io.actiongate.gate.GateDriver.SEND;
import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.NotificationRoute;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.policy.PolicyKey;

/**
 * The gate reads a policy topic that also holds the notifier's routes (kind {@code notify}, PolicyRecord v3): it keeps
 * them in its global store like any record and never looks one up, and a route's body under a key the gate does ask
 * for reads as absent (docs/contract.md section 7, "Reviewers are told").
 */
class NotificationRouteIgnoredTest {

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

    private static PolicyRecord route(String profile, String tool) {
        return PolicyRecord.newBuilder().setKind("notify").setBody(NotificationRoute.newBuilder().setOrgId(ORG)
                .setProfileId(profile).setToolName(tool).setEmails(List.of("reviewers@acme.example"))
                .setSlackWebhooks(List.of("ops")).build()).build();
    }

    @Test
    void shouldAdmitAndDecideAsBeforeWithRoutesOnThePolicyTopic() {
        for (String profile : List.of("*", GateDriver.PROFILE)) {
            for (String tool : List.of("*", SEND)) {
                gate.policy.pipeInput(PolicyKey.notifyKey(ORG, profile, tool), route(profile, tool));
            }
        }

        var p = gate.propose(proposal("c-routed"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        gate.approve(p);

        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        assertThat(gate.deadLetters.isEmpty()).as("a route is no bad record").isTrue();
    }

    @Test
    void shouldReadARouteBodyUnderAToolKeyAsNoDescriptorAndFailClosed() {
        // a writer that puts a route under the tool's key takes the tool's descriptor away, never trusts anything
        gate.policy.pipeInput(PolicyKey.toolKey(PROVIDER, SEND), route("*", SEND));

        gate.propose(proposal("c-misfiled"));

        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(r.getReasonCode()).isEqualTo(ReasonCode.UNKNOWN_PROVIDER_METHOD.name());
        assertThat(gate.attempts.isEmpty()).isTrue();
    }
}
