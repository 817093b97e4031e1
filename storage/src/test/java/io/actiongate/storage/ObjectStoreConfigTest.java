package io.actiongate.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.actiongate.secrets.SecretReference;

class ObjectStoreConfigTest {

    @Test
    void shouldReadTheStorageKeysOfANodeConfig() {
        ObjectStoreConfig config = ObjectStoreConfig.fromNodeConfig(Map.of(
                "bootstrap.servers", "127.0.0.1:1",
                "storage.enabled", "true",
                "storage.endpoint", "http://127.0.0.1:9000",
                "storage.bucket", "b",
                "storage.path.style", "true",
                "storage.content.types", "text/plain",
                "storage.tool.webhook.send_report.content.types", "application/pdf, image/png"));
        assertThat(config.enabled()).isTrue();
        assertThat(config.endpoint()).hasValueSatisfying(u -> assertThat(u.getPort()).isEqualTo(9000));
        assertThat(config.limits("webhook", "send_report").allows("application/pdf")).isTrue();
        assertThat(config.limits("webhook", "send_report").allows("text/plain")).isFalse();
        assertThat(config.limits("webhook", "other").allows("text/plain; charset=utf-8")).isTrue();
        assertThat(config.credentials()).isEmpty();
    }

    @Test
    void shouldRefuseInlineSecretsAndHalfCredentials(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> SecretReference.resolve("storage.secret.access.key", "hunter2"))
                .hasMessageContaining("env:NAME or file:PATH").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> new ObjectStoreConfig(Map.of("storage.access.key.id", "env:X")))
                .isInstanceOf(ConfigException.class);
        Path secret = Files.writeString(dir.resolve("s"), "value\n");
        assertThat(SecretReference.resolve("k", "file:" + secret)).isEqualTo("value");
        assertThat(SecretReference.resolve("k", "env:A", Map.of("A", "b"))).isEqualTo("b");
        assertThatThrownBy(() -> SecretReference.resolve("k", "env:MISSING", Map.of()))
                .hasMessageContaining("MISSING");
    }

    @Test
    void shouldRefuseAnEndpointWithUserInfo() {
        assertThatThrownBy(() -> new ObjectStoreConfig(Map.of("storage.endpoint", "http://u:p@127.0.0.1:9000")))
                .isInstanceOf(ConfigException.class).hasMessageNotContaining("u:p");
    }
}
