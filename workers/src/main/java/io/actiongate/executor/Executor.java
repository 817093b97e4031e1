package io.actiongate.executor;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.polling.PollThread;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.storage.PreDispatchCheck;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The executor role: one member of the executor consumer group on {@code attempts}, dispatching each reserved
 * attempt at most once and producing its {@code AttemptOutcome}. Start with {@link #start}; {@link #close()}
 * leaves the group after in-flight dispatches reported their outcomes.
 *
 * <pre>{@code
 * try (Executor executor = Executor.start(new ExecutorConfig(props), ConnectorRegistry.load(props))) { ... }
 * }</pre>
 * The connector registry stays owned by the caller.
 */
public final class Executor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Executor.class);

    private final DispatchLoop loop;
    private final Consumer<String, byte[]> consumer;
    private final Producer<String, AttemptOutcome> producer;
    private final ExecutorService pool;
    private final ExecutorMetrics metrics;
    private final ExecutorConfig config;
    private final PollThread pollThread;

    private Executor(ExecutorConfig config, ConnectorRegistry connectors, PrometheusRegistry registry,
                     DispatchLoop.BatchHook hook) {
        this.config = config;
        this.metrics = new ExecutorMetrics(registry);
        this.consumer = consumer(config).create(new StringDeserializer(), new ByteArrayDeserializer());
        this.producer = producer(config).create(new StringSerializer(), Topics.OUTCOMES.valueSerde().serializer());
        this.pool = newPool(config.dispatchThreads());
        String prefix = config.topicPrefix();
        this.loop = new DispatchLoop(consumer, producer, Topics.ATTEMPTS.valueSerde().deserializer(),
                Topics.ATTEMPTS.name(prefix), Topics.OUTCOMES.name(prefix), connectors,
                new OutcomeMapper(config.executorId()), metrics, pool, config.dispatchThreads(),
                config.pollTimeout(), config.revocationTimeout(), Clock.systemUTC(), hook);
        this.loop.duplicateFence(config.duplicateFenceRecords());
        this.pollThread = new PollThread("executor", consumer, new PollThread.Loop() {
            @Override
            public void subscribe() {
                loop.subscribe();
            }

            @Override
            public void pollOnce() {
                loop.pollOnce();
            }
        }, this::shutdown);
    }

    /** Starts an executor that registers its metrics in the default Prometheus registry. */
    public static Executor start(ExecutorConfig config, ConnectorRegistry connectors) {
        return start(config, connectors, PrometheusRegistry.defaultRegistry);
    }

    public static Executor start(ExecutorConfig config, ConnectorRegistry connectors, PrometheusRegistry registry) {
        return start(config, connectors, registry, DispatchLoop.BatchHook.NONE);
    }

    /** As above, with the attachments and schema-hash check made right before each dispatch. */
    public static Executor startWith(ExecutorConfig config, ConnectorRegistry connectors,
                                     PrometheusRegistry registry, PreDispatchCheck preDispatch) {
        return start(config, connectors, registry, DispatchLoop.BatchHook.NONE, preDispatch);
    }

    static Executor start(ExecutorConfig config, ConnectorRegistry connectors, PrometheusRegistry registry,
                          DispatchLoop.BatchHook hook) {
        return start(config, connectors, registry, hook, PreDispatchCheck.WITHOUT_STORAGE);
    }

    static Executor start(ExecutorConfig config, ConnectorRegistry connectors, PrometheusRegistry registry,
                          DispatchLoop.BatchHook hook, PreDispatchCheck preDispatch) {
        Executor executor = new Executor(config, connectors, registry, hook);
        executor.loop.preDispatch(preDispatch);
        executor.pollThread.start();
        LOG.info("executor {} started: group {}, topic {}, {} dispatch thread(s), connectors {}",
                config.executorId(), config.groupId(), Topics.ATTEMPTS.name(config.topicPrefix()),
                config.dispatchThreads(), connectors.providers());
        return executor;
    }

    static Map<String, Object> consumerProperties(ExecutorConfig config) {
        return consumer(config).config();
    }

    /**
     * The fence: offsets move only through our commitSync, and only committed reservations are read (the factory
     * refuses {@code enable.auto.commit=true} and {@code read_uncommitted}).
     */
    private static KafkaClients.ConsumerSpec consumer(ExecutorConfig config) {
        return KafkaClients.of(config.kafkaClientProperties()).with(config.consumerOverrides())
                .consumer(config.executorId() + "-consumer").group(config.groupId())
                .set(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxPollRecords());
    }

    /**
     * Default {@code linger.ms} of the outcome producer: none. The gate settles an action only once its outcome is
     * on the broker, and a tool host waits for that; under load outcomes batch anyway while earlier sends are in
     * flight.
     */
    static final int OUTCOME_LINGER_MS = 0;

    static Map<String, Object> producerProperties(ExecutorConfig config) {
        return producer(config).config();
    }

    private static KafkaClients.ProducerSpec producer(ExecutorConfig config) {
        // executor.producer.linger.ms overrides OUTCOME_LINGER_MS
        return KafkaClients.of(config.kafkaClientProperties()).with(config.producerOverrides())
                .producer(config.executorId() + "-producer")
                .defaultTo(ProducerConfig.LINGER_MS_CONFIG, OUTCOME_LINGER_MS);
    }

    private static ExecutorService newPool(int threads) {
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "actiongate-executor-dispatch-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        // the queue stays within about the threads' number plus one batch: the poll loop pauses its partitions while
        // every thread is busy and as many reservations again wait
        return new ThreadPoolExecutor(threads, threads, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                factory);
    }

    private void shutdown() {
        try {
            if (!loop.awaitAll(config.shutdownTimeout())) {
                LOG.warn("closing with dispatches still in flight; the gate will mark them UNKNOWN");
            }
            consumer.close();
        } catch (RuntimeException e) {
            LOG.warn("error closing the executor consumer ({})", e.getClass().getSimpleName());
        } finally {
            pool.shutdown();
            try {
                pool.awaitTermination(config.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close();
        }
    }

    public ExecutorMetrics metrics() {
        return metrics;
    }

    /** True while the poll loop runs. */
    public boolean isRunning() {
        return pollThread.isRunning();
    }

    /** Why the poll loop stopped on its own, if it did. */
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
        LOG.info("executor {} stopped", config.executorId());
    }
}
