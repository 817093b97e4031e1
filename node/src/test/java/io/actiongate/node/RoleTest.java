package io.actiongate.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RoleTest {

    @Test
    void shouldKeepTheApprovalServiceOutOfAll() {
        assertThat(Role.parse("all")).containsExactlyInAnyOrder(Role.GATE, Role.EXECUTOR, Role.RECONCILER);
        assertThat(Role.parse("approver")).containsExactly(Role.APPROVER);
        assertThat(Role.parse("all, approver")).containsExactlyInAnyOrder(Role.values());
        assertThatThrownBy(() -> Role.parse("approvers")).hasMessageContaining("approver");
    }
}
