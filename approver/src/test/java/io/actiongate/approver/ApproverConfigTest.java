package io.actiongate.approver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ApproverConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> c = new HashMap<>();
        c.put(ApproverConfig.PUBLIC_URL, "https://approve.example.com");
        c.put(ApproverConfig.OIDC_ISSUER, "https://idp.example.com/realms/acme");
        c.put(ApproverConfig.OIDC_CLIENT_ID, "actiongate-approver");
        c.put(ApproverConfig.SIGNING_KEY_FILE, "/var/run/secrets/approver/approver-1.key");
        c.put(ApproverConfig.SIGNING_KEY_ID, "approver-1");
        return c;
    }

    @Test
    void shouldReadTheDefaultsTheReadmeDocuments() {
        ApproverConfig c = ApproverConfig.from(minimal());

        assertThat(c.decisionTtl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.challengeTtl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.sessionIdle()).isEqualTo(Duration.ofMinutes(15));
        assertThat(c.sessionMax()).isEqualTo(Duration.ofHours(8));
        assertThat(c.approvalWait()).isEqualTo(Duration.ofHours(24));
        assertThat(c.oidcOrgClaim()).isEqualTo("org");
        assertThat(c.port()).isEqualTo(8443);
        assertThat(c.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.origin()).isEqualTo("https://approve.example.com");
        assertThat(c.rpId()).isEqualTo("approve.example.com");
        assertThat(c.topicPrefix()).isEqualTo("actiongate.");
        assertThat(c.approvers()).isEmpty();
    }

    @Test
    void shouldTakeSenderAccountsFromTheConnectorsConfiguration() {
        Map<String, String> m = minimal();
        m.put("connectors.smtp.from", "assistant@acme.example");
        m.put("connectors.webhook.base-url", "https://hooks.acme.example/v1");
        m.put("approver.sender.x", "@acme");
        m.put("gate.approval.timeout", "2h");
        m.put("kafka.security.protocol", "SSL");

        ApproverConfig c = ApproverConfig.from(m);

        assertThat(c.senderAccounts()).containsEntry("smtp", "assistant@acme.example")
                .containsEntry("webhook", "https://hooks.acme.example/v1").containsEntry("x", "@acme");
        assertThat(c.approvalWait()).isEqualTo(Duration.ofHours(2));
        assertThat(c.kafkaClient()).containsEntry("security.protocol", "SSL");
    }

    @Test
    void shouldRefuseAnUnsafeOrIncompleteConfiguration() {
        Map<String, String> plainHttp = minimal();
        plainHttp.put(ApproverConfig.PUBLIC_URL, "http://approve.example.com");
        assertThatThrownBy(() -> ApproverConfig.from(plainHttp)).hasMessageContaining("must be https");

        Map<String, String> withPath = minimal();
        withPath.put(ApproverConfig.PUBLIC_URL, "https://example.com/approve");
        assertThatThrownBy(() -> ApproverConfig.from(withPath)).hasMessageContaining("without a path");

        Map<String, String> noIssuer = minimal();
        noIssuer.remove(ApproverConfig.OIDC_ISSUER);
        assertThatThrownBy(() -> ApproverConfig.from(noIssuer)).hasMessageContaining(ApproverConfig.OIDC_ISSUER);

        Map<String, String> badList = minimal();
        badList.put(ApproverConfig.APPROVERS, "demo");
        assertThatThrownBy(() -> ApproverConfig.from(badList)).hasMessageContaining("org_id:subject");

        Map<String, String> badTtl = minimal();
        badTtl.put(ApproverConfig.DECISION_TTL, "soon");
        assertThatThrownBy(() -> ApproverConfig.from(badTtl)).hasMessageContaining(ApproverConfig.DECISION_TTL);

        Map<String, String> localhost = minimal();
        localhost.put(ApproverConfig.PUBLIC_URL, "http://localhost:0");
        assertThat(ApproverConfig.from(localhost).withPublicPort(41234).origin()).isEqualTo("http://localhost:41234");
    }

    @Test
    void shouldDocumentEveryKeyOnTheApprovingPage() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "approving.md"));
        for (String key : ApproverConfig.KEYS) {
            assertThat(page).as("docs/approving.md documents " + key).contains("`" + key + "`");
        }
    }

    @Test
    void shouldNameTheKeyOfEveryBadValue() {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put(ApproverConfig.PORT, "abc");
        bad.put(ApproverConfig.SIGNING_KEY_ID, "no spaces");
        bad.put(ApproverConfig.SESSION_MAX, "forever");
        bad.put(ApproverConfig.APPROVAL_WAIT, "-1s");
        bad.put(io.actiongate.approver.web.HttpLimits.QUEUE_MAX, "many");
        bad.put(io.actiongate.approver.web.HttpLimits.IDLE_TIMEOUT_MS, "0");
        bad.put(io.actiongate.approver.web.IdpStepUp.MAX_AGE_SECONDS, "9999");
        bad.forEach((key, value) -> {
            Map<String, String> c = minimal();
            c.put(key, value);
            assertThatThrownBy(() -> ApproverConfig.from(c)).as(key + "=" + value)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
        });
    }

    @Test
    void shouldNeverShowTheClientSecretInAnError() {
        Map<String, String> c = minimal();
        c.put(ApproverConfig.OIDC_CLIENT_SECRET, "s3cr3t-value");
        c.put(ApproverConfig.PORT, "abc");

        assertThatThrownBy(() -> ApproverConfig.from(c)).hasMessageNotContaining("s3cr3t-value");
        c.remove(ApproverConfig.PORT);
        assertThat(ApproverConfig.from(c).oidcClientSecret()).contains("s3cr3t-value");
    }

    @Test
    void shouldKeepTheDefaultsOfEveryKey() {
        ApproverConfig c = ApproverConfig.from(minimal());

        assertThat(c.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(8443);
        assertThat(c.oidcOrgClaim()).isEqualTo("org");
        assertThat(c.oidcScopes()).isEqualTo("openid profile email");
        assertThat(c.oidcClientSecret()).isEmpty();
        assertThat(c.approvers()).isEmpty();
        assertThat(c.challengeTtl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.sessionIdle()).isEqualTo(Duration.ofMinutes(15));
        assertThat(c.sessionMax()).isEqualTo(Duration.ofHours(8));
        assertThat(c.approvalWait()).isEqualTo(Duration.ofHours(24));
        assertThat(c.enrolWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.httpLimits()).isEqualTo(io.actiongate.approver.web.HttpLimits.DEFAULTS);
        assertThat(c.stepUp()).isEqualTo(io.actiongate.approver.web.IdpStepUp.LOCAL);
        assertThat(c.stateKeyFile()).isEmpty();
        assertThat(c.stateTopic()).isEqualTo("actiongate.approver-state");
    }
}
