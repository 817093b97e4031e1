package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

class KafkaOptionsTest {

    @TempDir
    Path dir;

    private static KafkaOptions parse(String... args) {
        ReceiptsCommand command = new ReceiptsCommand();
        new CommandLine(command).parseArgs(args);
        return command.kafka;
    }

    @Test
    void shouldTakeBootstrapServersPrefixAndKafkaKeysFromTheEnvironment() {
        KafkaOptions.Resolved r = parse().resolve(Map.of(
                "ACTIONGATE_BOOTSTRAP_SERVERS", "127.0.0.1:1",
                "ACTIONGATE_TOPIC_PREFIX", "prod.",
                "ACTIONGATE_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "ACTIONGATE_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512"));

        assertThat(r.client()).containsEntry("bootstrap.servers", "127.0.0.1:1")
                .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat(r.topicPrefix()).isEqualTo("prod.");
    }

    @Test
    void shouldLetTheKafkaConfigFileWinOverConfigAndEnvironmentAndOptionsWinOverAll() throws IOException {
        Path config = Files.writeString(dir.resolve("actiongate.properties"),
                "bootstrap.servers=file:9092\nkafka.security.protocol=SSL\nkafka.client.id=from-config\n");
        Path client = Files.writeString(dir.resolve("client.conf"),
                "security.protocol=SASL_SSL\nbootstrap.servers=kafka-config:9093\n");

        KafkaOptions.Resolved fromFiles = parse("--config", config.toString(), "--kafka-config", client.toString())
                .resolve(Map.of("ACTIONGATE_KAFKA_SECURITY_PROTOCOL", "PLAINTEXT"));
        KafkaOptions.Resolved withOption = parse("--config", config.toString(), "--kafka-config", client.toString(),
                "--bootstrap-servers", "option:9094", "--prefix", "p.").resolve(Map.of());

        assertThat(fromFiles.client()).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("bootstrap.servers", "kafka-config:9093").containsEntry("client.id", "from-config");
        assertThat(withOption.client()).containsEntry("bootstrap.servers", "option:9094");
        assertThat(withOption.topicPrefix()).isEqualTo("p.");
    }

    @Test
    void shouldDefaultToTheLocalBrokerWithNothingSet() {
        KafkaOptions.Resolved r = parse().resolve(Map.of());

        assertThat(r.client()).isEqualTo(Map.of("bootstrap.servers", KafkaOptions.DEFAULT_BOOTSTRAP_SERVERS));
        assertThat(r.topicPrefix()).isEqualTo("actiongate.");
    }

    @Test
    void shouldNameAMissingJaasConfigurationWithoutVerbose() throws IOException {
        Path client = Files.writeString(dir.resolve("client.properties"),
                "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n");

        Cli.Result r = Cli.run("receipts", "--bootstrap-servers", "127.0.0.1:1", "--kafka-config",
                client.toString());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("missing JAAS configuration").doesNotContain("\tat ");
    }

    @Test
    void shouldNeverPrintASecretFromTheClientSettings() throws IOException {
        Path client = Files.writeString(dir.resolve("client.properties"),
                "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                        + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"u\" password=\"hunter2-secret\"\n"
                        + "ssl.truststore.location=" + dir.resolve("missing.p12") + "\n"
                        + "ssl.truststore.password=hunter2-secret\n");

        Cli.Result r = Cli.run("receipts", "--bootstrap-servers", "127.0.0.1:1", "--kafka-config",
                client.toString());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: ").doesNotContain("hunter2-secret");
        assertThat(r.out()).doesNotContain("hunter2-secret");
    }
}
