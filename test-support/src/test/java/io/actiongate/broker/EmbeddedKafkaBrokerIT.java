package io.actiongate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;

class EmbeddedKafkaBrokerIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    @Test
    void shouldListenOnLoopbackOnly() {
        assertThat(KAFKA.bootstrapServers()).startsWith("127.0.0.1:");
        assertThat(KAFKA.broker().port()).isPositive();
        assertThat(KAFKA.broker().controllerPort()).isNotEqualTo(KAFKA.broker().port());
    }

    /**
     * The gate commits as soon as it has drained its input and writes its next transaction at once; a write that
     * finds the previous transaction's markers still on their way waits for this backoff at the broker, Kafka's 20 ms
     * by default, where the markers take a few.
     */
    @Test
    void shouldRetryATransactionsWriteAfterFiveMillisecondsNotKafkasTwenty() throws Exception {
        String node = KAFKA.admin().describeCluster().nodes().get().iterator().next().idString();
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node);
        Config config = KAFKA.admin().describeConfigs(List.of(broker)).all().get().get(broker);

        assertThat(config.get(BrokerProperties.TXN_RETRY_BACKOFF_MS).value()).isEqualTo("5");
    }

    @Test
    void shouldDeliverOnlyCommittedTransactionsToReadCommittedConsumers(TestInfo test) throws Exception {
        String topic = TestNames.topicPrefix(test) + "tx";
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();

        Map<String, Object> producerProps = KAFKA.clientProperties();
        producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TestNames.applicationId(test));
        producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "committed-" + i));
            }
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "aborted-" + i));
            }
            producer.flush();
            producer.abortTransaction();
        }

        Map<String, Object> consumerProps = KAFKA.clientProperties();
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, TestNames.applicationId(test));
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        consumerProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.subscribe(Set.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            // keep polling a little after the 10th record so a leaked aborted record would be seen
            long quietUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, quietUntil)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
                if (values.size() >= 10 && quietUntil == Long.MAX_VALUE) {
                    quietUntil = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                }
            }
        }
        assertThat(values).hasSize(10).allMatch(v -> v.startsWith("committed-"));
    }

    @Test
    void shouldFailFastNamingThePortWhenItIsTaken() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            int port = taken.getLocalPort();
            long started = System.nanoTime();
            assertThatThrownBy(() -> EmbeddedKafkaBroker.builder().port(port).start())
                    .isInstanceOf(PortInUseException.class)
                    .hasMessage("port " + port + " on 127.0.0.1 is already in use");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        }
    }

    @Test
    void shouldKeepAGivenDataDirectoryAndDeleteATemporaryOne() throws IOException {
        Path given = Files.createTempDirectory("actiongate-it-");
        Path temporary;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(given).start()) {
            assertThat(broker.dataDir()).isEqualTo(given);
        }
        assertThat(given.resolve("kraft-logs").resolve("meta.properties")).exists();
        // restarting on the same directory reuses the formatted storage
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(given).start()) {
            assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:");
        }
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().start()) {
            temporary = broker.dataDir();
            assertThat(temporary).exists();
        }
        assertThat(temporary).doesNotExist();
        Utils.delete(given.toFile());
    }
}
