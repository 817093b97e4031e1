package io.actiongate.executor;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.admin.TopicsCreator;

/** Helpers the executor and reconciler ITs share. */
public final class ItSupport {

    private ItSupport() {
    }

    public static void createTopics(Admin admin, String prefix, int partitions) {
        new TopicsCreator(admin, 30_000).create(TopicsCreator.Plan.of(prefix, partitions, (short) 1));
    }

    /** The real webhook connector, loaded through the registry as a deployment would, aimed at the sandbox. */
    public static Connector webhook(URI sandbox, Duration responseTimeout) {
        return registry(sandbox, responseTimeout).find("webhook").orElseThrow();
    }

    public static ConnectorRegistry registry(URI sandbox, Duration responseTimeout) {
        return ConnectorRegistry.load(Map.of(
                "connectors.webhook.base-url", sandbox.toString(),
                "connectors.webhook.operations", "send_email",
                "connectors.webhook.connect-timeout-ms", "2000",
                "connectors.webhook.response-timeout-ms", Long.toString(responseTimeout.toMillis())));
    }

    public static <V> void produce(String bootstrap, String topic, TopicSpec<String, V> spec, Map<String, V> records) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // one request in flight and generous timeouts: the shared 2-core machine can stall the broker for seconds
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        try (KafkaProducer<String, V> producer = new KafkaProducer<>(props, new StringSerializer(),
                spec.valueSerde().serializer())) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            records.forEach((key, value) -> acks.add(producer.send(new ProducerRecord<>(topic, key, value))));
            producer.flush();
            for (java.util.concurrent.Future<?> ack : acks) {
                try {
                    ack.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("could not publish test records to " + topic, e.getCause());
                }
            }
        }
    }

    /** Reads {@code topic} from the beginning until {@code done} holds for what was read, or the timeout. */
    public static <V> List<V> readUntil(String bootstrap, String topic, TopicSpec<String, V> spec,
                                        Predicate<List<V>> done, Duration timeout) {
        return read(bootstrap, topic, spec, (consumer, partitions, values) -> {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!done.test(values) && System.nanoTime() < deadline) {
                poll(consumer, values);
            }
        });
    }

    /**
     * Reads everything committed to {@code topic} when called: each partition from its beginning to its end offset
     * for a read_committed reader at that moment (the last stable offset), and no further. Returns as soon as that is
     * read, unlike {@link #readAll}, which always waits its whole settle time.
     */
    public static <V> List<V> readToEnd(String bootstrap, String topic, TopicSpec<String, V> spec) {
        return read(bootstrap, topic, spec, (consumer, partitions, values) -> {
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end offsets " + ends);
                }
                poll(consumer, values);
            }
        });
    }

    /** How a reader reads on once it is at the beginning of every partition. */
    private interface Reading<V> {
        void read(KafkaConsumer<String, V> consumer, List<TopicPartition> partitions, List<V> values);
    }

    /** Every partition of {@code topic} from its beginning, read_committed, by a consumer without a group. */
    private static <V> List<V> read(String bootstrap, String topic, TopicSpec<String, V> spec, Reading<V> reading) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<V> values = new ArrayList<>();
        KafkaConsumer<String, V> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                spec.valueSerde().deserializer());
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            reading.read(consumer, partitions, values);
        } finally {
            // no group, nothing to commit: all a close could wait for is the fetch the broker holds (half a second)
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
        return values;
    }

    private static <V> void poll(KafkaConsumer<String, V> consumer, List<V> values) {
        for (ConsumerRecord<String, V> record : consumer.poll(Duration.ofMillis(100))) {
            values.add(record.value());
        }
    }

    /** Reads everything currently in {@code topic}, waiting {@code settle} for stragglers. */
    public static <V> List<V> readAll(String bootstrap, String topic, TopicSpec<String, V> spec, Duration settle) {
        return readUntil(bootstrap, topic, spec, values -> false, settle);
    }
}
