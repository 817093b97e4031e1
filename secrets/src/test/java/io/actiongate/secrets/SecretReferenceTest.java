package io.actiongate.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretReferenceTest {

    @Test
    void shouldResolveAnEnvironmentVariableAndAStrippedFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("token"), "  s3cret-value\n");

        assertThat(SecretReference.resolve("k", "env:TOKEN", Map.of("TOKEN", "from-env"))).isEqualTo("from-env");
        assertThat(SecretReference.resolve("k", "file:" + file, Map.of())).isEqualTo("s3cret-value");
    }

    @Test
    void shouldRefuseAnInlineSecretWithoutShowingIt() {
        assertThatThrownBy(() -> SecretReference.resolve("connectors.x.credential", "ghp_inline-secret", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectors.x.credential")
                .hasMessageContaining("secret reference").hasMessageNotContaining("ghp_inline-secret");
        assertThatThrownBy(() -> SecretReference.requireReference("k", "hunter2"))
                .hasMessageNotContaining("hunter2");
        assertThat(SecretReference.requireReference("k", " file:/run/secrets/x ")).isEqualTo("file:/run/secrets/x");
        assertThat(SecretReference.requireReference("k", " ")).isNull();
        assertThat(SecretReference.isReference("env:")).isFalse();
    }

    @Test
    void shouldRefuseAMissingOrEmptySecretNamingTheSetting(@TempDir Path dir) throws IOException {
        Path empty = Files.writeString(dir.resolve("empty"), "\n");

        assertThatThrownBy(() -> SecretReference.resolve("k", "env:MISSING", Map.of()))
                .hasMessage("k: environment variable MISSING is not set");
        assertThatThrownBy(() -> SecretReference.resolve("k", "env:EMPTY", Map.of("EMPTY", "")))
                .hasMessageContaining("EMPTY is not set");
        assertThatThrownBy(() -> SecretReference.resolve("k", "file:" + empty, Map.of()))
                .hasMessageContaining("is empty");
        assertThatThrownBy(() -> SecretReference.resolve("k", "file:" + dir.resolve("absent"), Map.of()))
                .isInstanceOf(UncheckedIOException.class).hasMessageStartingWith("k: cannot read the secret file");
    }
}
