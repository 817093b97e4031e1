package io.actiongate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's servers switch {@code TCP_NODELAY} on before the JDK's server reads the switch: without it every
 * provider call of {@code actiongate dev} waited about 40 ms for a delayed acknowledgement (see
 * {@link LoopbackHttpServers}). The JDK reads the property once per JVM, so what is tested is that it is set
 * before a server is created, and that an operator's own value is kept.
 */
class LoopbackHttpServersTest {

    private String before;

    @BeforeEach
    void remember() {
        before = System.getProperty(LoopbackHttpServers.NODELAY);
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty(LoopbackHttpServers.NODELAY);
        } else {
            System.setProperty(LoopbackHttpServers.NODELAY, before);
        }
    }

    @Test
    void shouldSwitchNagleOffBeforeTheWebhookProviderStarts() {
        System.clearProperty(LoopbackHttpServers.NODELAY);

        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()) {
            assertThat(provider.baseUri()).isNotNull();
        }

        assertThat(System.getProperty(LoopbackHttpServers.NODELAY)).isEqualTo("true");
    }

    @Test
    void shouldSwitchNagleOffBeforeTheChatWebhookStarts() {
        System.clearProperty(LoopbackHttpServers.NODELAY);

        try (SandboxChatWebhook hook = SandboxChatWebhook.start()) {
            assertThat(hook.url()).isNotNull();
        }

        assertThat(System.getProperty(LoopbackHttpServers.NODELAY)).isEqualTo("true");
    }

    @Test
    void shouldKeepTheOperatorsOwnValue() {
        System.setProperty(LoopbackHttpServers.NODELAY, "false");

        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()) {
            assertThat(provider.baseUri()).isNotNull();
        }

        assertThat(System.getProperty(LoopbackHttpServers.NODELAY)).isEqualTo("false");
    }
}
