package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.policy.PolicyKey;

class PolicyJsonTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static PolicyJson.Entry one(String json) {
        try {
            List<PolicyJson.Entry> entries = PolicyJson.fromJson(MAPPER.readTree(json));
            assertThat(entries).hasSize(1);
            return entries.get(0);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode tree(String json) throws Exception {
        return MAPPER.readTree(json);
    }

    @Test
    void shouldMapAToolDescriptorTakingProviderAndToolNameFromTheKey() {
        PolicyJson.Entry entry = one("""
                {"key": "tool:webhook:send_email", "kind": "tool", "operation": "send_email",
                 "schema_hash": "sha256:s", "read_only_hint": false, "destructive_hint": true,
                 "approval": "HUMAN", "max_input_bytes": 4096, "enabled": true}""");

        assertThat(entry.key().toString()).isEqualTo("tool:webhook:send_email");
        PolicyRecord record = entry.record();
        assertThat(record.getKind()).isEqualTo("tool");
        ToolDescriptor tool = (ToolDescriptor) record.getBody();
        assertThat(tool.getProvider()).isEqualTo("webhook");
        assertThat(tool.getToolName()).isEqualTo("send_email");
        assertThat(tool.getOperation()).isEqualTo("send_email");
        assertThat(tool.getSchemaHash()).isEqualTo("sha256:s");
        assertThat(tool.getReadOnlyHint()).isFalse();
        assertThat(tool.getDestructiveHint()).isTrue();
        assertThat(tool.getIdempotentHint()).isNull();
        assertThat(tool.getOpenWorldHint()).isNull();
        assertThat(tool.getApproval()).isEqualTo(ApprovalMode.HUMAN);
        assertThat(tool.getMaxInputBytes()).isEqualTo(4096);
        assertThat(tool.getEnabled()).isTrue();
    }

    @Test
    void shouldMapAnIntegration() {
        Integration body = (Integration) one("""
                {"key": "integration:acme:webhook", "kind": "integration", "enabled": true, "scopes": ["send"]}""")
                .record().getBody();

        assertThat(body.getOrgId()).isEqualTo("acme");
        assertThat(body.getProvider()).isEqualTo("webhook");
        assertThat(body.getEnabled()).isTrue();
        assertThat(body.getScopes()).containsExactly("send");
    }

    @Test
    void shouldMapAGrant() {
        Grant body = (Grant) one("""
                {"key": "grant:acme:chat-default", "kind": "grant", "org_id": "acme", "profile_id": "chat-default",
                 "tools": ["send_email", "post"], "mode": "READ_ONLY", "chat_enabled": false}""")
                .record().getBody();

        assertThat(body.getOrgId()).isEqualTo("acme");
        assertThat(body.getProfileId()).isEqualTo("chat-default");
        assertThat(body.getTools()).containsExactly("send_email", "post");
        assertThat(body.getMode()).isEqualTo(GrantMode.READ_ONLY);
        assertThat(body.getChatEnabled()).isFalse();
    }

    @Test
    void shouldMapAnAuthorizationEpoch() {
        AuthorizationEpoch body = (AuthorizationEpoch) one("""
                {"key": "epoch:acme", "kind": "epoch", "epoch": 12}""").record().getBody();

        assertThat(body.getOrgId()).isEqualTo("acme");
        assertThat(body.getEpoch()).isEqualTo(12L);
    }

    @Test
    void shouldMapATaskStateWhoseIdHoldsAColon() {
        PolicyJson.Entry entry = one("""
                {"key": "task:proj:T-1", "kind": "task", "org_id": "acme", "version": 4, "status": "CANCELLED"}""");
        TaskState body = (TaskState) entry.record().getBody();

        assertThat(body.getTaskId()).isEqualTo("proj:T-1");
        assertThat(body.getVersion()).isEqualTo(4L);
        assertThat(body.getStatus()).isEqualTo(LifecycleStatus.CANCELLED);
        assertThat(body.getOrgId()).isEqualTo("acme");
    }

    @Test
    void shouldRequireTheOwningOrgOfATaskAndOfAnOrigin() {
        // a task or origin without an owner admits nobody's proposal: refuse to write one
        assertThatThrownBy(() -> one("""
                {"key": "task:T-1", "kind": "task", "version": 1, "status": "ACTIVE"}"""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("org_id");
        assertThatThrownBy(() -> one("""
                {"key": "origin:conv-9", "kind": "origin", "status": "ACTIVE"}"""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("org_id");
        assertThatThrownBy(() -> one("""
                {"key": "task:T-1", "kind": "task", "org_id": "a b", "version": 1, "status": "ACTIVE"}"""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("org_id");
    }

    @Test
    void shouldMapAnOriginState() {
        OriginState body = (OriginState) one("""
                {"key": "origin:conv-9", "kind": "origin", "org_id": "acme", "status": "ACTIVE",
                 "active_turn_id": "turn-3"}""")
                .record().getBody();

        assertThat(body.getConversationId()).isEqualTo("conv-9");
        assertThat(body.getStatus()).isEqualTo(LifecycleStatus.ACTIVE);
        assertThat(body.getActiveTurnId()).isEqualTo("turn-3");
        assertThat(body.getOrgId()).isEqualTo("acme");
    }

    @Test
    void shouldReadAListOfRecords() throws Exception {
        List<PolicyJson.Entry> entries = PolicyJson.fromJson(tree("""
                [{"key": "epoch:acme", "kind": "epoch", "epoch": 1},
                 {"key": "task:T-1", "kind": "task", "org_id": "acme", "version": 1, "status": "ACTIVE"}]"""));

        assertThat(entries).extracting(e -> e.key().toString()).containsExactly("epoch:acme", "task:T-1");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"key\": \"epoch:acme\", \"kind\": \"task\", \"version\": 1, \"status\": \"ACTIVE\"}"
            + "|policy: kind 'task' does not match key epoch:acme",
        "{\"key\": \"tool:webhook\", \"kind\": \"tool\"}|policy: policy key must be tool:{provider}:{tool_name}",
        "{\"key\": \"secret:acme\", \"kind\": \"secret\"}|policy: unknown policy kind 'secret'",
        "{\"key\": \"acme\", \"kind\": \"epoch\", \"epoch\": 1}|policy: policy key must be kind:part[:part]",
        "{\"key\": \"epoch:acme\", \"kind\": \"epoch\", \"org_id\": \"other\", \"epoch\": 1}"
            + "|policy: field 'org_id' is 'other' but the key says 'acme'",
        "{\"key\": \"epoch:acme\", \"kind\": \"epoch\"}|policy: field 'epoch' is required",
        "{\"key\": \"epoch:acme\", \"kind\": \"epoch\", \"epoch\": 1, \"epok\": 2}"
            + "|policy: field 'epok' is not a known field",
        "{\"key\": \"task:T-1\", \"kind\": \"task\", \"org_id\": \"acme\", \"version\": 1, \"status\": \"DONE\"}"
            + "|policy: field 'status' must be one of [ACTIVE, CANCELLED, ARCHIVED], was 'DONE'",
        "{\"key\": \"grant:acme:p\", \"kind\": \"grant\", \"mode\": \"FULL_ACCESS\", \"chat_enabled\": true}"
            + "|policy: field 'tools' is required",
        "{\"key\": \"tool:webhook:send\", \"kind\": \"tool\", \"operation\": \"send\", \"schema_hash\": \"h\","
            + " \"approval\": \"MAYBE\", \"max_input_bytes\": 10, \"enabled\": true}"
            + "|policy: field 'approval' must be one of [HUMAN, ORIGIN_REQUEST, NONE], was 'MAYBE'",
        "{\"key\": \"integration:acme:webhook\", \"kind\": \"integration\", \"enabled\": \"yes\"}"
            + "|policy: field 'enabled' must be true or false"})
    void shouldExplainWhatIsWrong(String json, String message) throws Exception {
        assertThatThrownBy(() -> PolicyJson.fromJson(tree(json))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void shouldRejectTheSameKeyTwiceInOneList() throws Exception {
        assertThatThrownBy(() -> PolicyJson.fromJson(tree("""
                [{"key": "epoch:acme", "kind": "epoch", "epoch": 1},
                 {"key": "epoch:acme", "kind": "epoch", "epoch": 2}]""")))
                .hasMessage("policy[1]: key epoch:acme appears twice");
    }

    @Test
    void shouldValidateKeysForDeletion() {
        assertThat(PolicyKey.parse("integration:acme:webhook").kind()).isEqualTo(PolicyKey.Kind.INTEGRATION);
        assertThatThrownBy(() -> PolicyKey.parse("grant:acme")).hasMessageContaining("grant:{org_id}:{profile_id}");
        assertThatThrownBy(() -> PolicyKey.parse("tool::send")).hasMessageContaining("provider is empty");
    }

    @Test
    void shouldMapANotificationRouteTakingOrgProfileAndToolFromTheKey() {
        PolicyJson.Entry entry = one("""
                {"key": "notify:acme:*:send_email", "kind": "notify", "emails": ["alice@acme.example"],
                 "slack_webhooks": ["ops"], "json_webhooks": ["pager", "audit.v2"], "remind_before_ms": 600000}""");

        assertThat(entry.key().toString()).isEqualTo("notify:acme:*:send_email");
        assertThat(entry.record().getKind()).isEqualTo("notify");
        io.actiongate.avro.NotificationRoute route = (io.actiongate.avro.NotificationRoute) entry.record().getBody();
        assertThat(route.getOrgId()).isEqualTo("acme");
        assertThat(route.getProfileId()).isEqualTo("*");
        assertThat(route.getToolName()).isEqualTo("send_email");
        assertThat(route.getEmails()).containsExactly("alice@acme.example");
        assertThat(route.getSlackWebhooks()).containsExactly("ops");
        assertThat(route.getJsonWebhooks()).containsExactly("pager", "audit.v2");
        assertThat(route.getRemindBeforeMs()).isEqualTo(600_000L);

        io.actiongate.avro.NotificationRoute quiet = (io.actiongate.avro.NotificationRoute) one("""
                {"key": "notify:acme:agent:*", "kind": "notify"}""").record().getBody();
        assertThat(quiet.getEmails()).isEmpty();
        assertThat(quiet.getSlackWebhooks()).isEmpty();
        assertThat(quiet.getRemindBeforeMs()).as("the notifier's default").isNull();
        // what policy put writes is what the notifier reads back
        byte[] bytes = io.actiongate.serde.AvroSerdes.serde(PolicyRecord.class).serialize(null, entry.record());
        assertThat(io.actiongate.serde.AvroSerdes.serde(PolicyRecord.class).deserialize(null, bytes))
                .isEqualTo(entry.record());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"key\": \"notify:acme:*:*\", \"kind\": \"notify\", \"slack_webhooks\":"
            + " [\"https://hooks.slack.com/services/T0/B0/abc\"]}"
            + "|policy: field 'slack_webhooks[0]' must be the name of a webhook in the notifier's configuration",
        "{\"key\": \"notify:acme:*:*\", \"kind\": \"notify\", \"emails\": [\"Alice <a@acme.example>\"]}"
            + "|policy: field 'emails[0]' is not a bare email address",
        "{\"key\": \"notify:acme:*:*\", \"kind\": \"notify\", \"emails\": [\"a@acme.example\","
            + " \"a@acme.example\"]}|policy: field 'emails' names one entry twice",
        "{\"key\": \"notify:acme:*:*\", \"kind\": \"notify\", \"remind_before_ms\": -1}"
            + "|policy: field 'remind_before_ms' must be 0 (no reminder) or positive",
        "{\"key\": \"notify:*:*:*\", \"kind\": \"notify\"}|policy: field 'org_id' must match",
        "{\"key\": \"notify:acme:*:*\", \"kind\": \"notify\", \"url\": \"https://x.example\"}"
            + "|policy: field 'url' is not a known field",
        "{\"key\": \"notify:acme:*\", \"kind\": \"notify\"}"
            + "|policy: policy key must be notify:{org_id}:{profile_id}:{tool_name}"})
    void shouldRefuseANotificationRouteThatNamesAUrlOrAMalformedDestination(String json, String message)
            throws Exception {
        assertThatThrownBy(() -> PolicyJson.fromJson(tree(json))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void shouldBoundTheDestinationsOfOneRoute() throws Exception {
        StringBuilder emails = new StringBuilder();
        for (int i = 0; i <= PolicyJson.MAX_EMAILS; i++) {
            emails.append(i == 0 ? "" : ",").append("\"r").append(i).append("@acme.example\"");
        }
        assertThatThrownBy(() -> PolicyJson.fromJson(tree("{\"key\": \"notify:acme:*:*\", \"kind\": \"notify\","
                + " \"emails\": [" + emails + "]}"))).hasMessageContaining("names more than 50");
    }
}
