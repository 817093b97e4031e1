package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class GatewayConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", "127.0.0.1:1");
        c.put("mcp.gateway.tokens.file", "/run/secrets/mcp-hosts");
        c.put("mcp.gateway.review.url", "https://review.example/{action_key}");
        c.put("mcp.gateway.upstreams", "notes");
        c.put("mcp.gateway.upstream.notes.url", "http://notes:3000");
        c.put("mcp.gateway.upstream.notes.provider", "webhook");
        return c;
    }

    @Test
    void shouldReadUpstreamsWithTheirOperations() {
        Map<String, String> c = minimal();
        c.put("mcp.gateway.upstream.notes.operations", "notes_lookup:get_notes, notes_post:post_update");
        GatewayConfig config = GatewayConfig.from(c);
        assertThat(config.port()).isEqualTo(8090);
        assertThat(config.topicPrefix()).isEqualTo("actiongate.");
        GatewayConfig.UpstreamConfig notes = config.upstreams().get(0);
        assertThat(notes.endpoint()).isEqualTo("/mcp");
        assertThat(notes.operation("notes_post")).isEqualTo("post_update");
        assertThat(notes.operation("other")).isEqualTo("other");
    }

    @Test
    void shouldTakeTheGatesDefaultOrgForTasksWithoutOne() {
        Map<String, String> c = minimal();
        assertThat(GatewayConfig.from(c).taskDefaultOrg()).isNull();
        c.put("gate.task.default.org", "acme");
        assertThat(GatewayConfig.from(c).taskDefaultOrg()).isEqualTo("acme");
        c.put("gate.task.default.org", "not an org");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("gate.task.default.org");
    }

    @Test
    void shouldRunTheToolsOfAnUpstreamWithoutProviderOnTheUpstreamItselfAsTheirOwnOperations() {
        Map<String, String> c = minimal();
        c.remove("mcp.gateway.upstream.notes.provider");
        GatewayConfig.UpstreamConfig notes = GatewayConfig.from(c).upstreams().get(0);
        assertThat(notes.provider()).isEqualTo("mcp");
        assertThat(notes.operation("notes_post")).isEqualTo("notes/notes_post");
        c.put("mcp.gateway.upstream.notes.operations", "notes_post:post_update");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("their own operations");
    }

    @Test
    void shouldPassKafkaKeysToTheGatewaysClientsWithoutShowingThem() {
        Map<String, String> c = minimal();
        c.put("kafka.security.protocol", "SASL_SSL");
        c.put("kafka.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule password=\"p4ss\";");
        c.put("kafka.bootstrap.servers", "elsewhere:9092");
        GatewayConfig config = GatewayConfig.from(c);
        assertThat(config.kafkaClient()).containsEntry("security.protocol", "SASL_SSL").containsKey("sasl.jaas.config")
                .containsEntry("bootstrap.servers", "127.0.0.1:1"); // the gateway's own key wins over kafka.*
        assertThat(config.bootstrapServers()).isEqualTo("127.0.0.1:1");
        assertThat(config.toString()).contains("sasl.jaas.config").doesNotContain("p4ss");
    }

    @Test
    void shouldTakeAnUpstreamCredentialOnlyAsASecretReference() {
        Map<String, String> c = minimal();
        c.put("mcp.gateway.upstream.notes.credential", "env:NOTES_TOKEN");
        assertThat(GatewayConfig.from(c).upstreams().get(0).credential()).isEqualTo("env:NOTES_TOKEN");
        c.put("mcp.gateway.upstream.notes.credential", "ghp_inline-secret");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("secret reference")
                .hasMessageNotContaining("ghp_inline-secret");
    }

    @Test
    void shouldNameTheMissingOrBadKey() {
        Map<String, String> c = minimal();
        c.remove("mcp.gateway.upstream.notes.url");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("mcp.gateway.upstream.notes.url");
        Map<String, String> name = minimal();
        name.put("mcp.gateway.upstreams", "no/tes");
        assertThatThrownBy(() -> GatewayConfig.from(name)).hasMessageContaining("not an upstream name");
        Map<String, String> bad = minimal();
        bad.put("mcp.gateway.upstream.notes.operations", "notes_post");
        assertThatThrownBy(() -> GatewayConfig.from(bad)).hasMessageContaining("tool:operation");
    }

    @Test
    void shouldNameTheKeyOfABadNumber() {
        // before the ConfigDef: "error: For input string: "abc"", naming no key
        for (String[] bad : new String[][] {{"mcp.gateway.port", "abc"}, {"mcp.gateway.port", "70000"},
                {"mcp.gateway.answer.timeout.ms", "soon"}, {"mcp.gateway.answer.timeout.ms", "0"}}) {
            Map<String, String> c = minimal();
            c.put(bad[0], bad[1]);
            assertThatThrownBy(() -> GatewayConfig.from(c)).as(bad[0] + "=" + bad[1])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad[0]);
        }
    }

    @Test
    void shouldNameEveryMissingRequiredKey() {
        for (String key : new String[] {"bootstrap.servers", "mcp.gateway.tokens.file", "mcp.gateway.review.url",
                "mcp.gateway.upstreams"}) {
            Map<String, String> c = minimal();
            c.put(key, " ");
            assertThatThrownBy(() -> GatewayConfig.from(c)).as(key).hasMessageContaining(key);
        }
    }

    @Test
    void shouldNeedStaticTokensOrAnIssuerAndTakeOAuthAlone() {
        Map<String, String> c = minimal();
        c.remove("mcp.gateway.tokens.file");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("mcp.gateway.tokens.file or "
                + "mcp.gateway.oauth.issuer");
        c.put("mcp.gateway.oauth.issuer", "https://login.acme.example/");
        GatewayConfig config = GatewayConfig.from(c);
        assertThat(config.tokensFile()).isNull();
        assertThat(config.oauth().issuer()).hasToString("https://login.acme.example/");
        assertThat(config.oauth().resource()).as("derived at start").isNull();
        assertThat(config.oauth().principalClaim()).isEqualTo("sub");
        assertThat(config.sessionTask()).isEqualTo("mcp-{org_id}");
        assertThat(config.approvalWait()).hasSeconds(50);
        assertThat(config.approvalProgress()).hasSeconds(5);
        c.put("mcp.gateway.oauth.issuer", "http://login.acme.example/");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("must use https");
    }

    @Test
    void shouldRefuseASessionTaskThatIsNoTaskId() {
        Map<String, String> c = minimal();
        c.put("mcp.gateway.session.task", "mcp/{org_id}");
        assertThatThrownBy(() -> GatewayConfig.from(c)).hasMessageContaining("mcp.gateway.session.task");
        c.put("mcp.gateway.session.task", "");
        assertThat(GatewayConfig.from(c).sessionTask()).as("blank: the default").isEqualTo("mcp-{org_id}");
        c.put("mcp.gateway.session.task", "none");
        assertThat(GatewayConfig.from(c).sessionTask()).as("none: no session task").isEmpty();
    }

    @Test
    void shouldDeriveTheResourceOnlyFromALoopbackBindAddress() {
        assertThat(OAuthSettings.derivedResource("127.0.0.1", 8090)).hasToString("http://127.0.0.1:8090/mcp");
        assertThatThrownBy(() -> OAuthSettings.derivedResource("0.0.0.0", 8090))
                .hasMessageContaining("mcp.gateway.oauth.resource");
    }

    @Test
    void shouldRefuseMoreWaitingCallsThanHalfTheHttpThreads() {
        Map<String, String> c = minimal();
        c.put("mcp.gateway.approval.max.waiting", "5");
        GatewayConfig config = GatewayConfig.from(c);
        // refused before anything connects: the brokers at 127.0.0.1:1 are never asked
        assertThatThrownBy(() -> McpGateway.start(config, new io.actiongate.runtime.HttpLimits(8, 16, 64, 1_000,
                1_000, 1_000))).hasMessageContaining("mcp.gateway.approval.max.waiting is 5: at most half of "
                + "mcp.gateway.http.threads.max (8)");
    }
}
