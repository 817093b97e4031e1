package io.actiongate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dir;

    @Test
    void shouldReadPropertiesFile() throws IOException {
        Path file = write("actiongate.properties", """
                bootstrap.servers = broker-1:9092,broker-2:9092
                topic.partitions=24
                gate.some.future.key=x
                """);

        Map<String, String> config = ConfigLoader.load(file, Map.of());

        assertThat(config).containsEntry("bootstrap.servers", "broker-1:9092,broker-2:9092")
                .containsEntry("topic.partitions", "24")
                .containsEntry("gate.some.future.key", "x");
    }

    @Test
    void shouldFlattenNestedYamlMapsToDottedKeys() throws IOException {
        Path file = write("actiongate.yaml", """
                bootstrap:
                  servers: kafka:9092
                topic:
                  prefix: acme.
                  partitions: 6
                connectors:
                  smtp:
                    allowed-recipients: [a@example.com, b@example.com]
                    starttls: true
                http.port: 9000
                """);

        Map<String, String> config = ConfigLoader.load(file, Map.of());

        assertThat(config).containsExactlyInAnyOrderEntriesOf(Map.of(
                "bootstrap.servers", "kafka:9092",
                "topic.prefix", "acme.",
                "topic.partitions", "6",
                "connectors.smtp.allowed-recipients", "a@example.com,b@example.com",
                "connectors.smtp.starttls", "true",
                "http.port", "9000"));
    }

    @Test
    void shouldAcceptYmlExtension() throws IOException {
        Path file = write("c.yml", "topic:\n  prefix: x.\n");

        assertThat(ConfigLoader.load(file, Map.of())).containsEntry("topic.prefix", "x.");
    }

    @Test
    void shouldLetEnvironmentOverrideTheFile() throws IOException {
        Path file = write("actiongate.properties", "bootstrap.servers=from-file:9092\ntopic.prefix=file.\n");

        Map<String, String> config = ConfigLoader.load(file, Map.of(
                "ACTIONGATE_BOOTSTRAP_SERVERS", "from-env:9092",
                "ACTIONGATE_JAVA_OPTS", "-Xmx1g",
                "PATH", "/usr/bin"));

        assertThat(config).containsEntry("bootstrap.servers", "from-env:9092")
                .containsEntry("topic.prefix", "file.")
                .doesNotContainKeys("java.opts", "path");
    }

    @Test
    void shouldLoadEnvironmentAloneWhenNoFileIsGiven() {
        Map<String, String> config = ConfigLoader.load(null, Map.of("ACTIONGATE_TOPIC_PARTITIONS", "3"));

        assertThat(config).containsExactly(Map.entry("topic.partitions", "3"));
    }

    @Test
    void shouldRejectMissingFileAndUnknownExtensionInOneLine() throws IOException {
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("nope.yaml"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nope.yaml")
                .hasMessageContaining("does not exist");
        Path json = write("c.json", "{}");
        assertThatThrownBy(() -> ConfigLoader.load(json, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(".properties, .yaml or .yml");
    }

    @Test
    void shouldReportMalformedYamlInOneLine() throws IOException {
        Path file = write("bad.yaml", "topic:\n  prefix: [unclosed\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cannot read config file")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }
}
