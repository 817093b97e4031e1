package io.actiongate.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RoleTest {

    @Test
    void shouldKeepTheApprovalServiceAndTheMcpGatewayOutOfAll() {
        assertThat(Role.parse("all")).containsExactlyInAnyOrder(Role.GATE, Role.EXECUTOR, Role.RECONCILER);
        assertThat(Role.parse("approver")).containsExactly(Role.APPROVER);
        assertThat(Role.parse("mcp-gateway")).containsExactly(Role.MCP_GATEWAY);
        assertThat(Role.parse("notifier,approver")).containsExactly(Role.APPROVER, Role.NOTIFIER);
        assertThat(Role.parse("all, approver")).containsExactlyInAnyOrder(Role.GATE, Role.EXECUTOR, Role.RECONCILER,
                Role.APPROVER);
        assertThat(Role.parse("all, mcp-gateway")).contains(Role.GATE, Role.MCP_GATEWAY).hasSize(4);
        assertThatThrownBy(() -> Role.parse("approvers")).hasMessageContaining("approver");
        assertThatThrownBy(() -> Role.parse("gateway")).hasMessageContaining("mcp-gateway");
    }
}
