package io.actiongate.acls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

import io.actiongate.cli.Main;

class RoleAclsTest {

    /** Topics a tool host or an MCP gateway must never write: a model's credentials cannot decide or dispatch. */
    private static final List<String> CONTROL_TOPICS = List.of("actiongate.decisions", "actiongate.policy",
            "actiongate.attempts", "actiongate.outcomes", "actiongate.reconciliations", "actiongate.receipts");

    @Test
    void shouldNeverLetAToolHostOrTheGatewayWriteAControlTopic() {
        for (RoleAcls.Role role : List.of(RoleAcls.Role.TOOL_HOST, RoleAcls.Role.MCP_GATEWAY)) {
            assertThat(writes(RoleAcls.bindings(role, "User:host", Map.of()))).as(role.id())
                    .containsExactly("actiongate.proposals");
        }
    }

    @Test
    void shouldLetTheApproverWriteOnlyDecisionsAndItsOwnState() {
        // of the contract's topics only decisions; beside them the approver's own compacted state topic
        assertThat(writes(RoleAcls.bindings(RoleAcls.Role.APPROVER, "User:approver", Map.of())))
                .containsExactly("actiongate.decisions", "actiongate.approver-state");
        assertThat(writes(RoleAcls.bindings(RoleAcls.Role.APPROVER, "User:approver",
                Map.of("approver.state.topic", "ops.approver"))))
                .containsExactly("actiongate.decisions", "ops.approver");
    }

    @Test
    void shouldLetTheNotifierReadWhatItTellsOfAndWriteOnlyItsOwnState() {
        List<AclBinding> notifier = RoleAcls.bindings(RoleAcls.Role.NOTIFIER, "User:notifier", Map.of());

        assertThat(notifier.stream().filter(b -> b.entry().operation() == AclOperation.READ)
                .map(b -> b.pattern().name())).containsExactlyInAnyOrder("actiongate.receipts",
                        "actiongate.proposals", "actiongate.policy", "actiongate.notifier-state");
        assertThat(writes(notifier)).containsExactly("actiongate.notifier-state");
        assertThat(writes(RoleAcls.bindings(RoleAcls.Role.NOTIFIER, "User:notifier",
                Map.of("notifier.state.topic", "ops.notices")))).containsExactly("ops.notices");
    }

    @Test
    void shouldLetTheApproverReadTheGatesConflicts() {
        // the review says a conflicting proposal was refused on the gate's record of it, not on proposals
        assertThat(RoleAcls.bindings(RoleAcls.Role.APPROVER, "User:approver", Map.of()).stream()
                .filter(b -> b.entry().operation() == AclOperation.READ).map(b -> b.pattern().name()))
                .contains("actiongate.conflicts", "actiongate.receipts", "actiongate.proposals");
    }

    @Test
    void shouldGrantNoRoleAllOperationsOrAClusterAcl() {
        for (RoleAcls.Role role : RoleAcls.Role.values()) {
            assertThat(RoleAcls.bindings(role, "User:x", Map.of(RoleAclsTest.STORAGE, "true"))).as(role.id())
                    .noneMatch(b -> b.entry().operation() == AclOperation.ALL)
                    .noneMatch(b -> b.pattern().resourceType() == ResourceType.CLUSTER)
                    .noneMatch(b -> b.pattern().name().equals("*"));
        }
    }

    private static final String STORAGE = "storage.enabled";

    @Test
    void shouldDeriveNamesFromTheRolesConfiguration() {
        Map<String, String> config = Map.of("topic.prefix", "prod.", "application.id", "prod-gate",
                "executor.group.id", "prod-exec");

        List<AclBinding> gate = RoleAcls.bindings(RoleAcls.Role.GATE, "User:gate", config);
        List<AclBinding> executor = RoleAcls.bindings(RoleAcls.Role.EXECUTOR, "User:exec", config);

        assertThat(gate).anyMatch(b -> b.pattern().resourceType() == ResourceType.TRANSACTIONAL_ID
                && b.pattern().patternType() == PatternType.PREFIXED && b.pattern().name().equals("prod-gate-"));
        // <application.id>- and not <application.id>: another release's gate, prod-gate2, is not this one's
        assertThat(gate).filteredOn(b -> b.pattern().patternType() == PatternType.PREFIXED).isNotEmpty()
                .allMatch(b -> b.pattern().name().equals("prod-gate-"));
        assertThat(gate).allMatch(b -> b.pattern().name().startsWith("prod"));
        assertThat(executor).anyMatch(b -> b.pattern().resourceType() == ResourceType.GROUP
                && b.pattern().name().equals("prod-exec"));
    }

    @Test
    void shouldRejectAnUnknownRoleAndAMalformedPrincipal() {
        assertThatThrownBy(() -> RoleAcls.Role.parse("admin")).hasMessageContaining("one of gate, executor");
        assertThatThrownBy(() -> RoleAcls.bindings(RoleAcls.Role.GATE, "gate", Map.of()))
                .hasMessageContaining("User:NAME");
    }

    @Test
    void shouldRefuseAnApplicationIdThatPrefixesEveryTopic() {
        // the gate's PREFIXED grants on "actiongate-" would then include WRITE on actiongate-decisions
        assertThatThrownBy(() -> RoleAcls.bindings(RoleAcls.Role.TOOL_HOST, "User:host",
                Map.of("application.id", "actiongate", "topic.prefix", "actiongate-")))
                .hasMessageContaining("would cover the actiongate topic 'actiongate-proposals'");
        // or a single topic: "acmedead-" covers acme + dead-letters
        assertThatThrownBy(() -> RoleAcls.bindings(RoleAcls.Role.GATE, "User:gate",
                Map.of("application.id", "acmedead", "topic.prefix", "acme")))
                .hasMessageContaining("'acmedead-letters'");
        // a prefix without the dash overlaps nothing: actiongate-* is not actiongate.*
        assertThat(RoleAcls.bindings(RoleAcls.Role.GATE, "User:gate",
                Map.of("application.id", "actiongate", "topic.prefix", "actiongate."))).isNotEmpty();
    }

    @Test
    void shouldPrintKafkaAclsCommandsForTheRole() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"acls", "--role", "reconciler", "--principal", "User:rec", "--kafka-acls",
            "--bootstrap-servers", "kafka:9093"}, new PrintWriter(out, true), new PrintWriter(err, true));

        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString().lines()).containsExactly(
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add "
                        + "--allow-principal 'User:rec' --operation Read --topic 'actiongate.unknown-outcomes'",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add "
                        + "--allow-principal 'User:rec' --operation Write --topic 'actiongate.reconciliations'",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add "
                        + "--allow-principal 'User:rec' --operation Read --group 'actiongate-reconciler'");
    }

    @Test
    void shouldKeepTheDocsTableCurrent() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "kafka-security.md"), StandardCharsets.UTF_8);

        assertThat(doc).contains(RoleAcls.markdownTable());
    }

    private static List<String> writes(List<AclBinding> bindings) {
        return bindings.stream().filter(b -> b.entry().operation() == AclOperation.WRITE)
                .map(b -> b.pattern().name()).toList();
    }
}
