package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.actiongate.http.HttpServerConfig;
import io.actiongate.http.ProposalApiConfig;

/** What dev announces: only a token that is in force, and "running" only once all can serve. */
class DevStartupTest {

    private static final Path DEV_FILE = Path.of("/data/secrets/host-tokens");

    @Test
    void shouldPrintTheHostTokenWhenDevsOwnFileIsInForce() {
        String hint = DevStack.tokenHint("tool host token:", Map.of(ProposalApiConfig.TOKENS_FILE_CONFIG,
                DEV_FILE.toString()), ProposalApiConfig.TOKENS_FILE_CONFIG, DEV_FILE, "c0ffee", "Bearer TOKEN");

        assertThat(hint).isEqualTo("tool host token: c0ffee   (in " + DEV_FILE + "; Bearer c0ffee)");
    }

    @Test
    void shouldNeverPrintDevsTokenWhenTheConfigurationNamesAnotherTokensFile() {
        String hint = DevStack.tokenHint("tool host token:", Map.of(ProposalApiConfig.TOKENS_FILE_CONFIG,
                "/etc/actiongate/hosts"), ProposalApiConfig.TOKENS_FILE_CONFIG, DEV_FILE, "c0ffee", "Bearer TOKEN");

        assertThat(hint).doesNotContain("c0ffee").contains("/etc/actiongate/hosts")
                .contains(ProposalApiConfig.TOKENS_FILE_CONFIG);
    }

    @Test
    void shouldSayNoTokenIsInForceWhenNoTokensFileIsSet() {
        String hint = DevStack.tokenHint("gate API token:", Map.of(), HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG,
                DEV_FILE, "c0ffee", "curl TOKEN");

        assertThat(hint).doesNotContain("c0ffee").contains("none in force");
    }

    @Test
    void shouldWaitUntilEveryComponentCanServe() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        DevComponent slow = component(() -> asked.incrementAndGet() >= 5);

        DevEnvironment.awaitReady(java.util.List.of(component(() -> true), slow), 5_000);

        assertThat(asked).hasValue(5);
    }

    @Test
    void shouldFailWhenAComponentNeverServes() {
        assertThatThrownBy(() -> DevEnvironment.awaitReady(java.util.List.of(component(() -> false)), 200))
                .isInstanceOf(IllegalStateException.class).hasMessage("test component did not become ready within 200 ms");
    }

    private static DevComponent component(java.util.function.BooleanSupplier ready) {
        return new DevComponent() {
            @Override
            public String name() {
                return "test component";
            }

            @Override
            public AutoCloseable start(DevContext context) {
                return () -> { };
            }

            @Override
            public boolean ready() {
                return ready.getAsBoolean();
            }
        };
    }
}
