package io.actiongate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class CommonConfigTest {

    @Test
    void shouldApplyDefaults() {
        CommonConfig config = new CommonConfig(Map.of());

        assertThat(config.bootstrapServers()).isEqualTo("127.0.0.1:9092");
        assertThat(config.topicPrefix()).isEqualTo("actiongate.");
        assertThat(config.topicPartitions()).isEqualTo(12);
        assertThat(config.topicReplicationFactor()).isEqualTo((short) 1);
        assertThat(config.applicationId()).isEqualTo("actiongate-gate");
        assertThat(config.httpPort()).isEqualTo(8080);
        assertThat(config.stateDir().toString()).endsWith("actiongate-state");
    }

    @Test
    void shouldReadGivenValues() {
        CommonConfig config = new CommonConfig(Map.of(
                "bootstrap.servers", "a:1, b:2",
                "topic.prefix", "acme.",
                "topic.partitions", "3",
                "topic.replication.factor", "3",
                "http.port", "0"));

        assertThat(config.bootstrapServers()).isEqualTo("a:1,b:2");
        assertThat(config.topicPrefix()).isEqualTo("acme.");
        assertThat(config.topicPartitions()).isEqualTo(3);
        assertThat(config.topicReplicationFactor()).isEqualTo((short) 3);
        assertThat(config.httpPort()).isZero();
    }

    @Test
    void shouldRejectANonNumberWithOneLineNamingTheKey() {
        assertThatThrownBy(() -> new CommonConfig(Map.of("topic.partitions", "many")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("topic.partitions")
                .hasMessageContaining("many")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void shouldRejectOutOfRangeAndMalformedValues() {
        assertThatThrownBy(() -> new CommonConfig(Map.of("topic.partitions", "0")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("topic.partitions");
        assertThatThrownBy(() -> new CommonConfig(Map.of("http.port", "70000")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("http.port");
        assertThatThrownBy(() -> new CommonConfig(Map.of("bootstrap.servers", "no-port")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("'no-port' is not host:port");
        assertThatThrownBy(() -> new CommonConfig(Map.of("topic.prefix", "bad prefix/")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("topic.prefix");
    }

    @Test
    void shouldAcceptUnknownKeysUnderKnownNamespacesAndReportOthers() {
        CommonConfig config = new CommonConfig(Map.of(
                "gate.approval.timeout", "PT1H",
                "executor.threads", "4",
                "reconciler.interval", "PT1M",
                "connectors.webhook.base-url", "http://127.0.0.1:1",
                "bootstrap.server", "typo:9092"));

        assertThat(config.unrecognizedKeys()).containsExactly("bootstrap.server");
    }

    @Test
    void shouldPassKafkaPrefixedKeysToClients() {
        CommonConfig config = new CommonConfig(Map.of("bootstrap.servers", "k:9092",
                "kafka.security.protocol", "SSL"));

        assertThat(config.kafkaClientProperties())
                .containsEntry("bootstrap.servers", "k:9092")
                .containsEntry("security.protocol", "SSL");
    }

    @Test
    void shouldLetRoleConfigsExtendTheDefinition() {
        assertThat(CommonConfig.configDef().names()).contains("bootstrap.servers", "topic.prefix",
                "topic.partitions", "topic.replication.factor", "state.dir", "application.id", "http.port");
        // every call returns a fresh definition that a role can add to without affecting others
        CommonConfig.configDef().define("gate.x", ConfigDef.Type.STRING, "",
                ConfigDef.Importance.LOW, "x");
        assertThat(CommonConfig.configDef().names()).doesNotContain("gate.x");
    }
}
