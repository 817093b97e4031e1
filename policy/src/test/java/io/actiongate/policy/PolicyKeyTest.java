package io.actiongate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PolicyKeyTest {

    @Test
    void shouldBuildTheKeysThatParseBackToTheirKind() {
        assertThat(PolicyKey.parse(PolicyKey.toolKey("webhook", "send"))).isEqualTo(
                PolicyKey.of(PolicyKey.Kind.TOOL, "webhook", "send"));
        assertThat(PolicyKey.parse(PolicyKey.integrationKey("acme", "x")).kind()).isEqualTo(PolicyKey.Kind.INTEGRATION);
        assertThat(PolicyKey.parse(PolicyKey.grantKey("acme", "agent")).kind()).isEqualTo(PolicyKey.Kind.GRANT);
        assertThat(PolicyKey.parse(PolicyKey.epochKey("acme")).kind()).isEqualTo(PolicyKey.Kind.EPOCH);
        assertThat(PolicyKey.parse(PolicyKey.originKey("c:1")).parts()).containsExactly("c:1");
        assertThat(PolicyKey.of(PolicyKey.Kind.TASK, "t:1").toString()).isEqualTo(PolicyKey.taskKey("t:1"));
        assertThat(PolicyKey.parse(PolicyKey.notifyKey("acme", "*", "ns:send"))).isEqualTo(
                PolicyKey.of(PolicyKey.Kind.NOTIFY, "acme", "*", "ns:send"));
        assertThatThrownBy(() -> PolicyKey.parse("notify:acme:*")).hasMessageContaining(
                "notify:{org_id}:{profile_id}:{tool_name}");
    }

    @Test
    void shouldRefuseAKeyOfTheWrongShape() {
        assertThatThrownBy(() -> PolicyKey.parse("tool:webhook")).hasMessageContaining("tool:{provider}:{tool_name}");
        assertThatThrownBy(() -> PolicyKey.parse("nope:x")).hasMessageContaining("unknown policy kind");
        assertThatThrownBy(() -> PolicyKey.of(PolicyKey.Kind.GRANT, "ac me", "agent"))
                .hasMessageContaining("white space");
    }

    @Test
    void shouldLetAnApproverDecideOnlyForItsOwnOrgAndItsAllowList() {
        ApproverPolicy anyone = ApproverPolicy.parse(java.util.List.of());
        ApproverPolicy listed = ApproverPolicy.parse(java.util.List.of(" acme:bob ", "beta:*"));

        assertThat(anyone.mayDecide("acme", "eve", "acme")).isTrue();
        assertThat(anyone.mayDecide("beta", "eve", "acme")).isFalse();
        assertThat(listed.mayDecide("acme", "bob", "acme")).isTrue();
        assertThat(listed.mayDecide("acme", "eve", "acme")).isFalse();
        assertThat(listed.mayDecide("beta", "eve", "beta")).isTrue();
        assertThat(ApproverPolicy.sameOrg(null, null)).isFalse();
        assertThatThrownBy(() -> ApproverPolicy.parse(java.util.List.of("acme"))).hasMessageContaining("org_id:subject");
    }
}
