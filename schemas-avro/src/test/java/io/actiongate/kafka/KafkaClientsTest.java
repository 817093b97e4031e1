package io.actiongate.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {

    private static final Map<String, String> FLAT = Map.of("bootstrap.servers", "broker:9093",
            "kafka.security.protocol", "SASL_SSL", "kafka.linger.ms", "7");

    @Test
    void shouldPassTheUserSettingsThroughToEveryClient() {
        KafkaClients clients = KafkaClients.fromConfig(FLAT);
        for (Map<String, Object> config : List.of(clients.producer("p").config(), clients.consumer("c").config(),
                clients.admin("a").config())) {
            assertThat(config).containsEntry("bootstrap.servers", "broker:9093")
                    .containsEntry("security.protocol", "SASL_SSL");
        }
    }

    @Test
    void shouldLetTheUserChangeRoleDefaultsButNotSafety() {
        Map<String, Object> producer = KafkaClients.fromConfig(FLAT).producer("actiongate-x")
                .defaultTo(ProducerConfig.LINGER_MS_CONFIG, 5)
                .defaultTo(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000).config();
        assertThat(producer).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "7")
                .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000)
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(CommonClientConfigs.CLIENT_ID_CONFIG, "actiongate-x")
                .doesNotContainKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        assertThat(KafkaClients.of(Map.of()).producer("p").config()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0);
    }

    @Test
    void shouldRefuseAUserSettingThatTurnsIdempotenceOff() {
        KafkaClients clients = KafkaClients.fromConfig(Map.of("kafka.enable.idempotence", "false"));
        assertThatThrownBy(() -> clients.producer("p").config()).isInstanceOf(ConfigException.class)
                .hasMessageContaining("enable.idempotence").hasMessageContaining("false");
    }

    @Test
    void shouldRefuseWeakerAcksButAcceptTheirSpellingsOfAll() {
        assertThatThrownBy(() -> KafkaClients.of(Map.of("acks", "1")).producer("p").config())
                .isInstanceOf(ConfigException.class).hasMessageContaining("acks");
        assertThat(KafkaClients.of(Map.of("acks", "-1")).producer("p").config())
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all");
        assertThat(KafkaClients.of(Map.of("enable.idempotence", "TRUE")).producer("p").config())
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    }

    @Test
    void shouldRefuseAnotherTransactionalIdForATransactionalRole() {
        assertThat(KafkaClients.of(Map.of()).producer("p").transactional("txn-1").config())
                .containsEntry(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-1");
        assertThatThrownBy(() -> KafkaClients.of(Map.of("transactional.id", "mine")).producer("p")
                .transactional("txn-1").config()).isInstanceOf(ConfigException.class)
                .hasMessageContaining("transactional.id");
    }

    @Test
    void shouldRefuseAConsumerThatWouldReadAbortedRecordsOrCommitBehindTheRolesBack() {
        assertThatThrownBy(() -> KafkaClients.fromConfig(Map.of("kafka.isolation.level", "read_uncommitted"))
                .consumer("c").config()).isInstanceOf(ConfigException.class)
                .hasMessageContaining("isolation.level").hasMessageContaining("read_uncommitted");
        assertThatThrownBy(() -> KafkaClients.of(Map.of("enable.auto.commit", "true")).consumer("c").config())
                .isInstanceOf(ConfigException.class).hasMessageContaining("enable.auto.commit");
    }

    @Test
    void shouldGiveAConsumerTheRolesGroupOrNone() {
        KafkaClients clients = KafkaClients.of(Map.of("group.id", "everyone"));
        assertThat(clients.consumer("c").config()).doesNotContainKey(ConsumerConfig.GROUP_ID_CONFIG)
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        assertThat(clients.consumer("c").group("actiongate-executor").config())
                .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "actiongate-executor");
    }

    @Test
    void shouldLayARolesOwnPrefixOverThePassThrough() {
        KafkaClients clients = KafkaClients.fromConfig(FLAT).with(Map.of("linger.ms", "9"));
        assertThat(clients.producer("p").config()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "9")
                .containsEntry("security.protocol", "SASL_SSL");
        assertThat(KafkaClients.of("b:1", Map.of("bootstrap.servers", "ignored:2")).admin("a").config())
                .containsEntry("bootstrap.servers", "b:1");
    }
}
