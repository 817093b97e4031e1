package io.actiongate.reconciler;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
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
        this.consumer = new KafkaConsumer<>(consumerProperties(config), new StringDeserializer(),
                new ByteArrayDeserializer());
        this.producer = new KafkaProducer<>(producerProperties(config), new StringSerializer(),
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
        Map<String, Object> props = new HashMap<>(config.kafkaClientProperties());
        props.putAll(config.consumerOverrides());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxPollRecords());
        props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return props;
    }

    static Map<String, Object> producerProperties(ReconcilerConfig config) {
        Map<String, Object> props = new HashMap<>(config.kafkaClientProperties());
        props.putAll(config.producerOverrides());
        props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        return props;
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
