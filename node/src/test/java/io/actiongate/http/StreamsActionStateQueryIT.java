package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Two Streams instances of a tiny topology (a KTable of String to String), each with its own HTTP surface: a GET on
 * either instance answers for every key, whichever instance owns it.
 */
class StreamsActionStateQueryIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String STORE = "actions-view";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int KEYS = 24;

    @TempDir
    Path stateDir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** The gate's view function: it must never return an input body; the surface strips one anyway. */
    private static JsonNode view(String value) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("status", value);
        node.put("input_json", "{\"secret\":\"never served\"}");
        return node;
    }

    private record Instance(KafkaStreams streams, GateHttpServer http, HostInfo host) {
    }

    private Instance start(String applicationId, String topic, int index) throws IOException {
        int port = freePort();
        HostInfo self = new HostInfo("127.0.0.1", port);
        StreamsBuilder builder = new StreamsBuilder();
        builder.table(topic, Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, self.host() + ":" + self.port());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("instance-" + index).toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        // a close waits for the fetch the broker holds: 100 ms, not half a second, for each of its consumers
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 100);
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        open.add(streams);
        StreamsActionStateQuery<String> query = new StreamsActionStateQuery<>(streams, STORE, self,
                StreamsActionStateQueryIT::view);
        GateHttpServer http = new GateHttpServer(new HttpServerConfig("127.0.0.1", port, HttpSecurity.OPEN), query,
                new PrometheusRegistry(), () -> streams.state() == KafkaStreams.State.RUNNING).start();
        open.add(http);
        streams.start();
        return new Instance(streams, http, self);
    }

    @Test
    void shouldAnswerEveryKeyOnEitherInstanceByRoutingToItsOwner(TestInfo test) throws Exception {
        String topic = TestNames.topicPrefix(test) + "state";
        KAFKA.admin().createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        List<String> keys = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(KAFKA.clientProperties(),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < KEYS; i++) {
                String key = "T-" + i + "/call-" + i;
                keys.add(key);
                producer.send(new ProducerRecord<>(topic, key, "STATE-" + i));
            }
            producer.flush();
        }
        String applicationId = TestNames.applicationId(test);
        Instance a = start(applicationId, topic, 1);
        Instance b = start(applicationId, topic, 2);

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(Http.get(a.http().port(), "/health/ready").statusCode()).isEqualTo(200);
            assertThat(Http.get(b.http().port(), "/health/ready").statusCode()).isEqualTo(200);
            assertThat(owners(a.streams(), keys)).containsExactlyInAnyOrder(a.host(), b.host());
            for (String key : keys) {
                assertThat(Http.get(a.http().port(), "/v1/actions/" + key).statusCode()).isEqualTo(200);
                assertThat(Http.get(b.http().port(), "/v1/actions/" + key).statusCode()).isEqualTo(200);
            }
        });

        for (int i = 0; i < KEYS; i++) {
            for (Instance instance : List.of(a, b)) {
                var response = Http.get(instance.http().port(), "/v1/actions/" + keys.get(i));
                assertThat(response.statusCode()).isEqualTo(200);
                JsonNode body = MAPPER.readTree(response.body());
                assertThat(body.get("status").asText()).isEqualTo("STATE-" + i);
                assertThat(body.has("input_json")).isFalse();
            }
        }
        assertThat(Http.get(a.http().port(), "/v1/actions/T-x/nope").statusCode()).isEqualTo(404);
        assertThat(Http.get(b.http().port(), "/v1/actions/T-x/nope").statusCode()).isEqualTo(404);
        assertThat(Http.get(a.http().port(), "/v1/actions/T%20x/nope").statusCode()).isEqualTo(400);
    }

    @Test
    void shouldAnswer503AndNotReadyBeforeStreamsRuns(TestInfo test) throws Exception {
        int port = freePort();
        StreamsBuilder builder = new StreamsBuilder();
        builder.table(TestNames.topicPrefix(test) + "state", Materialized.as(STORE));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, TestNames.applicationId(test));
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:" + port);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("never-started").toString());
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        open.add(streams);
        GateHttpServer http = new GateHttpServer(new HttpServerConfig("127.0.0.1", port, HttpSecurity.OPEN),
                new StreamsActionStateQuery<String>(streams, STORE, new HostInfo("127.0.0.1", port),
                        StreamsActionStateQueryIT::view),
                new PrometheusRegistry(), () -> streams.state() == KafkaStreams.State.RUNNING).start();
        open.add(http);

        assertThat(Http.get(port, "/v1/actions/T-1/c-1").statusCode()).isEqualTo(503);
        assertThat(Http.get(port, "/health/ready").statusCode()).isEqualTo(503);
        assertThat(Http.get(port, "/health/live").statusCode()).isEqualTo(200);
    }

    private static Set<HostInfo> owners(KafkaStreams streams, List<String> keys) {
        Set<HostInfo> owners = new HashSet<>();
        for (String key : keys) {
            owners.add(streams.queryMetadataForKey(STORE, key, Serdes.String().serializer()).activeHost());
        }
        return owners;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
