package io.actiongate.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import io.actiongate.client.ActionGateClient;

class ProposeAndWaitTest {

    @Test
    void shouldNameTheActionByTaskAndCallId() {
        assertThat(ProposeAndWait.request("call-1").actionKey()).isEqualTo("T-1/call-1");
    }

    @Test
    void shouldRefuseAClientWithoutBrokers() {
        assertThatThrownBy(() -> ActionGateClient.builder().build()).hasMessageContaining("bootstrapServers");
    }
}
