package io.actiongate.executor;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * An executor in its own JVM, for the kill -9 test. Arguments: bootstrap servers, topic prefix, group id, sandbox
 * base URL, mode. Mode {@code block-before-dispatch} announces {@code DISPATCH-ENTERED <key>} on stdout when the
 * executor hands a reservation to the connector (so after the offset commit) and then blocks before any byte is
 * sent; mode {@code normal} dispatches; mode {@code mcp} runs the real mcp connector against the MCP server at the URL.
 * The executor starts when a line arrives on stdin ({@link #start}): a test spawns the JVM ahead, while it prepares.
 */
public final class ExecutorProcessMain {

    public static final String ENTERED = "DISPATCH-ENTERED ";
    /** Mode: the real mcp connector against upstream {@code notes} at the given URL (the sandbox MCP server). */
    public static final String MCP = "mcp";

    /** The mcp connector for upstream {@code notes} at {@code url}, with a response timeout longer than a SLOW answer. */
    static ConnectorRegistry mcp(String url) {
        return ConnectorRegistry.load(Map.of("connectors.mcp.upstreams", "notes",
                "connectors.mcp.upstream.notes.url", url,
                "connectors.mcp.upstream.notes.response-timeout-ms", "60000"));
    }

    private ExecutorProcessMain() {
    }

    /** Lets an executor spawned ahead start (the JVM has been starting meanwhile). */
    public static void start(Process process) throws java.io.IOException {
        process.getOutputStream().write('\n');
        process.getOutputStream().flush();
    }

    public static void main(String[] args) throws InterruptedException, java.io.IOException {
        Map<String, Object> props = new HashMap<>();
        props.put(ExecutorConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ExecutorConfig.TOPIC_PREFIX_CONFIG, args[1]);
        props.put(ExecutorConfig.GROUP_ID_CONFIG, args[2]);
        props.put(ExecutorConfig.POLL_TIMEOUT_CONFIG, "100");
        props.put(ExecutorConfig.CONSUMER_PREFIX + "session.timeout.ms", "1500");
        props.put(ExecutorConfig.CONSUMER_PREFIX + "heartbeat.interval.ms", "300");
        ConnectorRegistry connectors;
        if (MCP.equals(args[4])) {
            connectors = mcp(args[3]);
        } else {
            Connector webhook = ItSupport.webhook(URI.create(args[3]), Duration.ofSeconds(60));
            connectors = ConnectorRegistry.of("block-before-dispatch".equals(args[4]) ? new BlockingConnector(webhook)
                    : webhook);
        }
        ExecutorConfig config = new ExecutorConfig(props);
        warmUp(config);
        if (System.in.read() < 0) {
            return; // the test ended before it needed this executor
        }
        Executor.start(config, connectors, new PrometheusRegistry());
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * Loads and initialises what starting an executor does (its Kafka clients, the record formats) while the test
     * is still preparing, so that the start it is told to make is quick: clients made and closed unused connect to
     * nothing.
     */
    private static void warmUp(ExecutorConfig config) {
        new KafkaConsumer<>(Executor.consumerProperties(config), new StringDeserializer(),
                new ByteArrayDeserializer()).close();
        new KafkaProducer<>(Executor.producerProperties(config), new StringSerializer(),
                Topics.OUTCOMES.valueSerde().serializer()).close();
        Topics.ATTEMPTS.valueSerde().deserializer();
    }

    /** Announces the dispatch, then never sends: the process is killed here, between commit and dispatch. */
    private record BlockingConnector(Connector delegate) implements Connector {
        @Override
        public String provider() {
            return delegate.provider();
        }

        @Override
        public OperationClassifier classifier() {
            return delegate.classifier();
        }

        @Override
        public DispatchResult dispatch(DispatchRequest request) {
            System.out.println(ENTERED + request.idempotencyKey());
            System.out.flush();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return DispatchResult.notSent("INTERRUPTED", "interrupted before sending");
        }

        @Override
        public LookupResult lookup(LookupRequest request) {
            return delegate.lookup(request);
        }
    }
}
