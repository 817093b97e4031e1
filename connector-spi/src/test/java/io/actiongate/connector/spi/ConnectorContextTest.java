package io.actiongate.connector.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two contexts a connector author is handed: with credentials (executor, reconciler) and without (gate). */
class ConnectorContextTest {

    @TempDir
    Path dir;

    @Test
    void shouldResolveAFileReferenceForAConnector() throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "s3cr3t-token\n");
        ConnectorContext context = ConnectorContext.of(Map.of("credential", "file:" + token));

        assertThat(context.secret(context.requiredSetting("credential"))).contains("s3cr3t-token");
        assertThat(context.secret(null)).isEmpty();
    }

    @Test
    void shouldRefuseAnInlineSecret() {
        ConnectorContext context = ConnectorContext.of(Map.of("credential", "s3cr3t-token"));

        assertThatThrownBy(() -> context.secret("s3cr3t-token")).isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("s3cr3t-token");
    }

    @Test
    void shouldNeverReadASecretForAClassifierEvenWhenTheFileIsReadable() throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "s3cr3t-token\n");
        ConnectorContext context = ConnectorContext.withoutCredentials(Map.of("credential", "file:" + token));

        assertThatThrownBy(() -> context.secret("file:" + token))
                .isInstanceOf(CredentialsUnavailableException.class);
        assertThat(context.secret(" ")).isEmpty();
        assertThat(context.setting("credential")).contains("file:" + token);
    }

    @Test
    void shouldKeepTheSettingsAConnectorWasBuiltWith() {
        Map<String, String> settings = new HashMap<>(Map.of("base-url", "http://127.0.0.1:9"));
        ConnectorContext context = ConnectorContext.of(settings);
        settings.put("base-url", "http://attacker.example");

        assertThat(context.requiredSetting("base-url")).isEqualTo("http://127.0.0.1:9");
        assertThatThrownBy(() -> context.requiredSetting("operations")).hasMessageContaining("'operations'");
    }
}
