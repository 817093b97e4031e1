package io.actiongate.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class ProducerConfigTest {

    @Test
    void shouldSendEachProposalWithoutLingerUnlessToldOtherwise() {
        Map<String, Object> defaults = ActionGateClient.producerConfig(Map.of("bootstrap.servers", "localhost:1"));
        assertThat(defaults).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);

        Map<String, Object> given = ActionGateClient.producerConfig(Map.of(ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.ACKS_CONFIG, "1"));
        assertThat(given).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 20)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all");
    }
}
