package io.actiongate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class EnvironmentOverridesTest {

    @Test
    void shouldMapVariableNamesToDottedLowerCaseKeys() {
        assertThat(EnvironmentOverrides.toKey("ACTIONGATE_BOOTSTRAP_SERVERS")).isEqualTo("bootstrap.servers");
        assertThat(EnvironmentOverrides.toKey("ACTIONGATE_TOPIC_REPLICATION_FACTOR"))
                .isEqualTo("topic.replication.factor");
    }

    @Test
    void shouldMapDoubleUnderscoreToDash() {
        assertThat(EnvironmentOverrides.toKey("ACTIONGATE_CONNECTORS_WEBHOOK_BASE__URL"))
                .isEqualTo("connectors.webhook.base-url");
        assertThat(EnvironmentOverrides.toVariable("connectors.webhook.base-url"))
                .isEqualTo("ACTIONGATE_CONNECTORS_WEBHOOK_BASE__URL");
    }

    @Test
    void shouldIgnoreOtherVariablesAndTheLauncherOptions() {
        assertThat(EnvironmentOverrides.from(Map.of("HOME", "/root", "ACTIONGATE_", "x",
                "ACTIONGATE_JAVA_OPTS", "-Xmx1g", "ACTIONGATE_HTTP_PORT", "9000")))
                .containsExactly(Map.entry("http.port", "9000"));
    }
}
