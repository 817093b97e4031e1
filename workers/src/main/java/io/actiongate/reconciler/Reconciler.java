package io.actiongate.reconciler;

import java.time.Clock;
import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Reconciliation;
import io.actiongate.polling.PollThread;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The reconciler role: asks the owning connector whether the effect behind each unknown outcome happened and
 * publishes a {@code Reconciliation}. It never dispatches. Start with {@link #start}; the connector registry stays
 * owned by the caller.
 */
public final class Reconciler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

    private final ReconcileLoop loop;
    private final Consumer<String, byte[]> consumer;
    private final Producer<String, Reconciliation> producer;
    private final ReconcilerMetrics metrics;
    private final PollThread pollThread;

    private Reconciler(ReconcilerConfig config, ConnectorRegistry connectors, PrometheusRegistry registry) {
        this.metrics = new ReconcilerMetrics(registry);
        this.consumer = consumer(config).create(new StringDeserializer(), new ByteArrayDeserializer());
        this.producer = producer(config).create(new StringSerializer(),
                Topics.RECONCILIATIONS.valueSerde().serializer());
        String prefix = config.topicPrefix();
        this.loop = new ReconcileLoop(consumer, producer, Topics.UNKNOWN_OUTCOMES.valueSerde().deserializer(),
                Topics.UNKNOWN_OUTCOMES.name(prefix), Topics.RECONCILIATIONS.name(prefix), connectors,
                config.maxLookups(), config.backoff(), config.pollTimeout(), config.lookupBudget(),
                Clock.systemUTC(), metrics);
        this.pollThread = new PollThread("reconciler", consumer, new PollThread.Loop() {
            @Override
            public void subscribe() {
                loop.subscribe();
            }

            @Override
            public void pollOnce() {
                loop.pollOnce();
            }
        }, this::release);
    }

    /** Starts a reconciler that registers its metrics in the default Prometheus registry. */
    public static Reconciler start(ReconcilerConfig config, ConnectorRegistry connectors) {
        return start(config, connectors, PrometheusRegistry.defaultRegistry);
    }

    public static Reconciler start(ReconcilerConfig config, ConnectorRegistry connectors,
                                   PrometheusRegistry registry) {
        Reconciler reconciler = new Reconciler(config, connectors, registry);
        reconciler.pollThread.start();
        LOG.info("reconciler started: group {}, topic {}, at most {} lookup(s) per unknown outcome, connectors {}",
                config.groupId(), Topics.UNKNOWN_OUTCOMES.name(config.topicPrefix()), config.maxLookups(),
                connectors.providers());
        return reconciler;
    }

    static Map<String, Object> consumerProperties(ReconcilerConfig config) {
        return consumer(config).config();
    }

    static Map<String, Object> producerProperties(ReconcilerConfig config) {
        return producer(config).config();
    }

    private static KafkaClients.ConsumerSpec consumer(ReconcilerConfig config) {
        return KafkaClients.of(config.kafkaClientProperties()).with(config.consumerOverrides())
                .consumer("actiongate-reconciler-consumer").group(config.groupId())
                .set(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxPollRecords());
    }

    private static KafkaClients.ProducerSpec producer(ReconcilerConfig config) {
        return KafkaClients.of(config.kafkaClientProperties()).with(config.producerOverrides())
                .producer("actiongate-reconciler-producer").defaultTo(ProducerConfig.LINGER_MS_CONFIG, 5);
    }

    private void release() {
        try {
            producer.flush();
            consumer.close();
        } catch (RuntimeException e) {
            LOG.warn("error closing the reconciler consumer ({})", e.getClass().getSimpleName());
        } finally {
            producer.close();
        }
    }

    public ReconcilerMetrics metrics() {
        return metrics;
    }

    public boolean isRunning() {
        return pollThread.isRunning();
    }

    public Throwable failure() {
        return pollThread.failure();
    }

    /** The consumer's Kafka client metrics (lag among them), read at scrape time. */
    public Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> clientMetrics() {
        return consumer.metrics();
    }

    @Override
    public void close() {
        pollThread.close();
        LOG.info("reconciler stopped");
    }
}
