package io.actiongate.dev;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.broker.EmbeddedKafkaBroker;
import io.actiongate.config.CommonConfig;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;
import io.actiongate.topics.admin.TopicsReport;

/**
 * Everything {@code actiongate dev} runs in one JVM: the embedded broker, the topics, then each {@link DevComponent}
 * in order. {@link #close()} stops them in reverse order; a failure while starting closes what already started.
 */
public final class DevEnvironment implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DevEnvironment.class);
    private static final long ADMIN_TIMEOUT_MS = 30_000;
    /** How long the started components may take to serve before dev gives up (the gate's first rebalance, mostly). */
    static final long READY_TIMEOUT_MS = 120_000;

    /**
     * Partitions of each topic {@code dev} creates unless {@code topic.partitions} says otherwise: one. {@code dev} is
     * one instance on one machine, so more partitions buy no parallelism, while every partition costs on every
     * commit (a transaction marker, an offset) and every fetch: with one partition instead of the production
     * default of 12, a host waiting for each answer got about twice the throughput per CPU-second
     * (docs/benchmark.md, part closed-loop).
     */
    public static final int PARTITIONS = 1;

    /** How to run: the broker's client port (0 = free port), its data directory (null = temporary). */
    public record Settings(int port, Path dataDir, Map<String, String> config) {
        public Settings {
            config = Map.copyOf(config);
        }
    }

    private final Deque<Named> started = new ArrayDeque<>();
    private final EmbeddedKafkaBroker broker;
    private final TopicsReport topics;
    private final DevContext context;
    private boolean closed;

    private record Named(String name, AutoCloseable closeable) {
    }

    private DevEnvironment(EmbeddedKafkaBroker broker, TopicsReport topics, DevContext context) {
        this.broker = broker;
        this.topics = topics;
        this.context = context;
    }

    /** Starts the broker, creates the topics and starts {@code components}; returns once all of them run. */
    public static DevEnvironment start(Settings settings, List<DevComponent> components) throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder()
                .port(settings.port())
                .dataDir(settings.dataDir())
                .start();
        DevEnvironment env = null;
        try {
            Map<String, String> config = new TreeMap<>(settings.config());
            config.putIfAbsent(CommonConfig.TOPIC_PARTITIONS_CONFIG, Integer.toString(PARTITIONS));
            config.put(CommonConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            config.putIfAbsent(CommonConfig.STATE_DIR_CONFIG, broker.dataDir().resolve("streams-state").toString());
            CommonConfig common = new CommonConfig(config);
            config.put(CommonConfig.TOPIC_PREFIX_CONFIG, common.topicPrefix());

            TopicsReport topics;
            try (Admin admin = KafkaClients.of(common.kafkaClientProperties()).admin("actiongate-dev-topics")
                    .create()) {
                // one broker: replication factor 1 whatever the configuration says
                topics = new TopicsCreator(admin, ADMIN_TIMEOUT_MS).create(TopicsCreator.Plan.of(
                        common.topicPrefix(), common.topicPartitions(), (short) 1));
                awaitLeaders(admin, Topics.names(common.topicPrefix()));
            }
            env = new DevEnvironment(broker, topics, new DevContext(config, broker.dataDir()));
            env.started.push(new Named("kafka", broker));
            for (DevComponent component : components) {
                LOG.info("Starting {}", component.name());
                env.started.push(new Named(component.name(), component.start(env.context)));
            }
            awaitReady(components, READY_TIMEOUT_MS);
            return env;
        } catch (Exception | Error e) {
            if (env != null) {
                env.close();
            } else {
                broker.close();
            }
            throw e;
        }
    }

    /**
     * Waits until every component can serve: {@code dev} prints that it runs (and a script waiting for that line
     * goes on) only then, so that the first request meets an API that answers, not a 503 while the gate's store is
     * still being opened.
     */
    static void awaitReady(List<DevComponent> components, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (DevComponent component : components) {
            while (!component.ready()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(component.name() + " did not become ready within "
                            + timeoutMs + " ms");
                }
                Thread.sleep(25);
            }
        }
    }

    /**
     * Waits until the broker leads every partition of {@code names}: a fresh topic is in the metadata a moment
     * before the broker acts as its leader, and a client writing in that moment logs a NOT_LEADER_OR_FOLLOWER
     * warning per partition and retry (harmless, but a newcomer reads it as a failure). Listing offsets is answered
     * by the leader itself, so once it succeeds for every partition, writes do too.
     */
    static void awaitLeaders(Admin admin, List<String> names) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(ADMIN_TIMEOUT_MS);
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        try {
            admin.describeTopics(names).allTopicNames().get(ADMIN_TIMEOUT_MS, java.util.concurrent.TimeUnit.MILLISECONDS)
                    .forEach((name, description) -> description.partitions().forEach(p ->
                            partitions.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.debug("cannot describe the new topics; not waiting for their leaders", e);
            return;
        }
        while (true) {
            try {
                admin.listOffsets(partitions).all().get(ADMIN_TIMEOUT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                if (System.nanoTime() - deadline > 0) {
                    LOG.debug("partition leaders not ready after {} ms; continuing", ADMIN_TIMEOUT_MS, e);
                    return;
                }
                Thread.sleep(50);
            }
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public EmbeddedKafkaBroker broker() {
        return broker;
    }

    public TopicsReport topics() {
        return topics;
    }

    /** Hints the components added while starting. */
    public List<String> hints() {
        return context.hints();
    }

    /** Stops every component in reverse start order, the broker last; keeps going past a failing one. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (!started.isEmpty()) {
            Named next = started.pop();
            try {
                LOG.debug("Stopping {}", next.name());
                next.closeable().close();
            } catch (Exception e) {
                LOG.warn("Stopping {} failed: {}", next.name(), e.toString());
            }
        }
    }
}
