package io.actiongate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import io.actiongate.kafka.KafkaClients;

class ProducerConfigTest {

    @Test
    void shouldSendEachProposalWithoutLingerUnlessToldOtherwise() {
        Map<String, Object> defaults = ActionGateClient.producer(KafkaClients.of("localhost:1", Map.of())).config();
        assertThat(defaults).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);

        Map<String, Object> given = ActionGateClient.producer(KafkaClients.of("localhost:1",
                Map.of(ProducerConfig.LINGER_MS_CONFIG, 20))).config();
        assertThat(given).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 20);
    }

    @Test
    void shouldRefuseAToolHostsWeakerAcks() {
        ActionGateClient.Builder builder = ActionGateClient.builder().bootstrapServers("localhost:1")
                .kafkaProperties(Map.of(ProducerConfig.ACKS_CONFIG, "1"));
        assertThatThrownBy(builder::build).isInstanceOf(ConfigException.class).hasMessageContaining("acks");
    }
}
