package io.actiongate.helm;

import static io.actiongate.helm.ChartRender.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.acls.RoleAcls;
import io.actiongate.acls.RoleAcls.Role;

/**
 * The chart's KafkaUsers grant each role exactly the ACLs of {@link RoleAcls}, the definition that
 * {@code actiongate acls} prints, SecuredClusterIT grants and docs/kafka-security.md tabulates: same resource type,
 * name, pattern type and operation, no more and no fewer, under the names the release's ConfigMap gives the role
 * ({@code topic.prefix}, {@code application.id}, the group ids, {@code storage.enabled}). Were the template to
 * drift from RoleAcls, a role would either fail on a real cluster or hold more than it needs.
 */
class HelmChartAclsTest {

    /** The chart's role (values key, KafkaUser suffix) to the RoleAcls role it runs as. */
    private static final Map<String, Role> ROLES = Map.of("gate", Role.GATE, "executor", Role.EXECUTOR,
            "reconciler", Role.RECONCILER, "approver", Role.APPROVER, "notifier", Role.NOTIFIER,
            "mcp-gateway", Role.MCP_GATEWAY);

    private static Map<String, Object> secured() {
        Map<String, Object> sets = new LinkedHashMap<>(HelmChartKafkaTest.everyRole());
        sets.put("notifier.enabled", true);
        sets.put("kafkaUsers.enabled", true);
        sets.put("topics.strimzi.enabled", true);
        sets.put("strimzi.clusterName", "my-cluster");
        return sets;
    }

    @Test
    void shouldGrantEveryRoleExactlyItsRoleAclsUnderTheDefaultIds() {
        assertChartMatchesRoleAcls(ChartRender.render(secured()), ChartRender.RELEASE);
    }

    @Test
    void shouldGrantEveryRoleExactlyItsRoleAclsUnderAnotherReleaseAndNamespace() {
        assertChartMatchesRoleAcls(ChartRender.renderRelease("ag2", "staging", secured()), "ag2");
    }

    @Test
    void shouldGrantEveryRoleExactlyItsRoleAclsUnderAnOwnTopicPrefixAndPinnedIds() {
        Map<String, Object> sets = secured();
        sets.put("topics.prefix", "acme.ag.");
        sets.put("gate.applicationId", "acme-gate");
        sets.put("executor.groupId", "acme-executor");
        sets.put("reconciler.groupId", "acme-reconciler");
        ChartRender render = ChartRender.render(sets);
        assertThat(properties(render.get("ConfigMap", ChartRender.RELEASE + "-actiongate")))
                .containsEntry("topic.prefix", "acme.ag.").containsEntry("application.id", "acme-gate");
        assertChartMatchesRoleAcls(render, ChartRender.RELEASE);
    }

    @Test
    void shouldGrantTheExecutorItsAttachmentCleanerAclsExactlyAsRoleAclsDoes() {
        Map<String, Object> sets = secured();
        sets.put("config.storage\\.enabled", "true");
        sets.put("kafkaUsers.authentication", "tls");
        sets.put("kafkaUsers.clusterCaSecret", "-");
        ChartRender render = ChartRender.render(sets);
        assertThat(properties(render.get("ConfigMap", ChartRender.RELEASE + "-actiongate")))
                .containsEntry("storage.enabled", "true");
        assertChartMatchesRoleAcls(render, ChartRender.RELEASE);
    }

    @Test
    void shouldRefuseAnApplicationIdThatPrefixesEveryTopicAsRoleAclsDoes() {
        Map<String, Object> sets = secured();
        sets.put("gate.applicationId", "acme");
        sets.put("topics.prefix", "acme-");
        assertThatThrownBy(() -> RoleAcls.bindings(Role.GATE, "User:gate",
                Map.of("application.id", "acme", "topic.prefix", "acme-")))
                .hasMessageContaining("would cover the actiongate topic 'acme-proposals'");
        assertThatThrownBy(() -> ChartRender.render(sets)).hasMessageContaining("\"acme\"")
                .hasMessageContaining("would cover the actiongate topic \"acme-proposals\"");
        // without KafkaUsers the chart grants nothing, so the names are the user's own affair
        sets.put("kafkaUsers.enabled", false);
        assertThat(ChartRender.render(sets).ofKind("KafkaUser")).isEmpty();
    }

    private static void assertChartMatchesRoleAcls(ChartRender render, String release) {
        String fullname = release + "-actiongate";
        Map<String, String> config = properties(render.get("ConfigMap", fullname));
        assertThat(render.ofKind("KafkaUser")).hasSize(ROLES.size());
        // every role's difference at once: a drift seldom stays in one role
        SoftAssertions softly = new SoftAssertions();
        ROLES.forEach((chartRole, role) -> {
            JsonNode user = render.get("KafkaUser", fullname + "-" + chartRole);
            Set<String> expected = new TreeSet<>();
            for (AclBinding b : RoleAcls.bindings(role, "User:" + chartRole, config)) {
                assertThat(b.entry().permissionType()).isEqualTo(AclPermissionType.ALLOW);
                expected.add(key(b.pattern().resourceType(), b.pattern().name(), b.pattern().patternType(),
                        b.entry().operation()));
            }
            softly.assertThat(granted(user)).as("ACLs of KafkaUser %s against RoleAcls %s", chartRole, role.id())
                    .containsExactlyElementsOf(expected);
        });
        softly.assertAll();
    }

    /** A KafkaUser's rules as one entry per (resource type, name, pattern type, operation), in Kafka's terms. */
    private static Set<String> granted(JsonNode user) {
        Set<String> keys = new TreeSet<>();
        for (JsonNode rule : user.path("spec").path("authorization").path("acls")) {
            assertThat(rule.path("type").asText("allow")).isEqualTo("allow");
            assertThat(rule.path("host").asText("*")).isEqualTo("*");
            JsonNode resource = rule.path("resource");
            ResourceType type = switch (resource.path("type").asText()) {
                case "topic" -> ResourceType.TOPIC;
                case "group" -> ResourceType.GROUP;
                case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
                case "cluster" -> ResourceType.CLUSTER;
                default -> throw new AssertionError("unknown resource type in " + rule);
            };
            PatternType pattern = switch (resource.path("patternType").asText("literal")) {
                case "literal" -> PatternType.LITERAL;
                case "prefix" -> PatternType.PREFIXED;
                default -> throw new AssertionError("unknown pattern type in " + rule);
            };
            String name = type == ResourceType.CLUSTER ? "kafka-cluster" : resource.path("name").asText();
            assertThat(rule.path("operations").isEmpty()).as("operations of %s", rule).isFalse();
            for (JsonNode op : rule.path("operations")) {
                assertThat(keys.add(key(type, name, pattern, operation(op.asText()))))
                        .as("granted twice: %s %s", op.asText(), resource).isTrue();
            }
        }
        return keys;
    }

    /** Strimzi spells operations in CamelCase (DescribeConfigs); Kafka as constants (DESCRIBE_CONFIGS). */
    private static AclOperation operation(String strimzi) {
        return AclOperation.valueOf(strimzi.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
    }

    private static String key(ResourceType type, String name, PatternType pattern, AclOperation op) {
        return type + " " + pattern + " " + name + " " + op;
    }
}
