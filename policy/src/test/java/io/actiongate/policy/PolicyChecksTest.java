package io.actiongate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.TaskState;
import io.actiongate.connector.spi.Classification;
import io.actiongate.contract.ReasonCode;

/**
 * The policy checks without the gate: any {@link CheckedAction} and any {@link ProviderClassifier} will do, and the
 * checks hand the caller's parsed input to the provider.
 */
class PolicyChecksTest {

    record Action(String provider, String toolName, String inputJson) implements CheckedAction {
        public String taskId() {
            return "t-1";
        }

        public long taskVersion() {
            return 1;
        }

        public String orgId() {
            return "acme";
        }

        public String profileId() {
            return "agent";
        }

        public long authorizationEpoch() {
            return 1;
        }

        public String operation() {
            return toolName;
        }

        public String toolSchemaHash() {
            return "sha256:v1";
        }

        public String summary() {
            return "look it up";
        }

        public boolean proposedIdempotencyKey() {
            return false;
        }

        public Origin origin() {
            return null;
        }
    }

    private final List<JsonNode> handed = new ArrayList<>();
    private final ProviderClassifier reads = (a, parsed) -> {
        handed.add(parsed);
        return Optional.of(new ProviderClassifier.Answer(Classification.Kind.READ, true, false));
    };

    private static PolicySnapshot policy(boolean toolEnabled) {
        return new PolicySnapshot(
                Optional.of(PolicyRecords.toolBuilder("webhook", "lookup").setEnabled(toolEnabled).build()),
                Optional.of(Integration.newBuilder().setOrgId("acme").setProvider("webhook").setEnabled(true).build()),
                Optional.of(Grant.newBuilder().setOrgId("acme").setProfileId("agent").setTools(List.of("lookup"))
                        .setMode(GrantMode.READ_ONLY).setChatEnabled(false).build()),
                Optional.of(TaskState.newBuilder().setTaskId("t-1").setOrgId("acme").setVersion(1)
                        .setStatus(LifecycleStatus.ACTIVE).build()),
                Optional.empty(),
                Optional.of(AuthorizationEpoch.newBuilder().setOrgId("acme").setEpoch(1).build()),
                null);
    }

    @Test
    void shouldAdmitATrustedReadAndHandTheParsedInputToTheProvider() throws Exception {
        JsonNode tree = new ObjectMapper().readTree("{\"q\":\"disk\"}");
        PolicyChecks.Verdict verdict = PolicyChecks.check(new Action("webhook", "lookup", "{\"q\":\"disk\"}"),
                policy(true), reads, tree);
        assertThat(verdict.rejection()).isEmpty();
        assertThat(verdict.trustedRead()).as("READ with read_only_hint=true").isTrue();
        assertThat(handed).containsExactly(tree);
        assertThat(ApprovalRoute.of(new Action("webhook", "lookup", "{}"), policy(true), verdict.trustedRead()))
                .isEqualTo(ApprovalRoute.AUTO_APPROVE);
    }

    @Test
    void shouldRefuseADisabledToolBeforeAskingTheProvider() {
        PolicyChecks.Verdict verdict = PolicyChecks.check(new Action("webhook", "lookup", "{}"), policy(false), reads);
        assertThat(verdict.rejection()).map(Rejection::code).contains(ReasonCode.TOOL_DISABLED);
        assertThat(handed).isEmpty();
    }

    @Test
    void shouldRefuseWhenTheProviderThrowsAndOnAReadOnlyGrantWhenItIsAnEffect() {
        ProviderClassifier throwing = (a, parsed) -> {
            throw new IllegalStateException("quotes the input");
        };
        assertThat(PolicyChecks.check(new Action("webhook", "lookup", "{}"), policy(true), throwing).rejection())
                .map(Rejection::code).contains(ReasonCode.UNKNOWN_PROVIDER_METHOD);
        ProviderClassifier effect = (a, parsed) -> Optional.of(
                new ProviderClassifier.Answer(Classification.Kind.EFFECT, true, false));
        assertThat(PolicyChecks.check(new Action("webhook", "lookup", "{}"), policy(true), effect).rejection())
                .map(Rejection::code).contains(ReasonCode.READ_ONLY_MODE);
    }

    @Test
    void shouldRefuseAnExpiredApprovalAndAnUnapprovedEffectAtTheRecheck() {
        Action a = new Action("webhook", "lookup", "{}");
        assertThat(PolicyChecks.recheck(a, 10L, true, policy(true), reads, 10).rejection()).map(Rejection::code)
                .contains(ReasonCode.APPROVAL_EXPIRED);
        ProviderClassifier hintlessRead = (x, parsed) -> Optional.of(
                new ProviderClassifier.Answer(Classification.Kind.READ, true, false));
        PolicySnapshot hintless = new PolicySnapshot(Optional.of(PolicyRecords.toolBuilder("webhook", "lookup")
                .setReadOnlyHint(null).build()), policy(true).integration(),
                Optional.of(Grant.newBuilder(policy(true).grant().get()).setMode(GrantMode.FULL_ACCESS).build()),
                policy(true).task(), Optional.empty(), policy(true).epoch(), null);
        assertThat(PolicyChecks.recheck(a, null, false, hintless, hintlessRead, 10).rejection()).as(
                "a READ without read_only_hint is no trusted read: unapproved, it may not run again")
                .map(Rejection::code).contains(ReasonCode.OPERATION_REFUSED);
        assertThat(PolicyChecks.recheck(a, null, true, hintless, hintlessRead, 10).rejection())
                .as("a human approved it").isEmpty();
    }
}
