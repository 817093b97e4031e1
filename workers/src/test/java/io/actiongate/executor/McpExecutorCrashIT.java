package io.actiongate.executor;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static io.actiongate.executor.ItSupport.readToEnd;
import static io.actiongate.executor.ItSupport.readUntil;
import static io.actiongate.executor.Reservations.key;
import static io.actiongate.executor.Reservations.live;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.sandbox.SandboxMcpServer.Fault;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The mcp connector in an executor JVM killed with SIGKILL while the upstream MCP server's tool runs: the effect
 * happened once, and the executor that takes over never calls the tool again for that reservation.
 */
class McpExecutorCrashIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final SandboxMcpServer upstream = SandboxMcpServer.start();

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
        upstream.close();
    }

    private Process spawn(String prefix, String group) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), ExecutorProcessMain.class.getName(),
                KAFKA.bootstrapServers(), prefix, group, upstream.url(), ExecutorProcessMain.MCP)
                .redirectErrorStream(true).start();
        processes.add(process);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                while (lines.readLine() != null) {
                    // drained so the child never blocks on a full pipe
                }
            } catch (IOException e) {
                // the process was killed
            }
        }, "mcp-executor-process-stdout");
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    static AttemptReservation post(String callId) {
        return AttemptReservation.newBuilder(live(callId, "mcp"))
                .setOperation("notes/" + SandboxMcpServer.SEND_TOOL).setToolName(SandboxMcpServer.SEND_TOOL)
                .setInputJson("{\"channel\":\"#ops\",\"text\":\"" + callId + "\"}").build();
    }

    private static void publish(String prefix, AttemptReservation reservation) {
        produce(KAFKA.bootstrapServers(), Topics.ATTEMPTS.name(prefix), Topics.ATTEMPTS,
                Map.of(key(reservation), reservation));
    }

    @Test
    void shouldNeverCallTheToolAgainAfterTheExecutorIsKilledWhileTheUpstreamRuns(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        String group = TestNames.applicationId(test);
        Process first = spawn(prefix, group); // its JVM starts while the topics are made
        createTopics(KAFKA.admin(), prefix, 1); // one partition: the later reservation proves the offset passed
        AttemptReservation killed = post("killed-mid-call");
        AttemptReservation later = post("after-restart");

        // the upstream applies the effect, then answers only after SLOW_MILLIS: the executor dies in between
        upstream.failNext(Fault.SLOW);
        ExecutorProcessMain.start(first);
        publish(prefix, killed);
        await().atMost(Duration.ofSeconds(90)).until(() -> upstream.effect(killed.getIdempotencyKey()).isPresent());
        first.destroyForcibly(); // SIGKILL: no shutdown hook, no outcome, no LeaveGroup
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();

        Map<String, Object> props = new HashMap<>();
        props.put(ExecutorConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ExecutorConfig.TOPIC_PREFIX_CONFIG, prefix);
        props.put(ExecutorConfig.GROUP_ID_CONFIG, group);
        props.put(ExecutorConfig.POLL_TIMEOUT_CONFIG, "100");
        props.put(ExecutorConfig.CONSUMER_PREFIX + "fetch.max.wait.ms", "100"); // no held fetch to wait out at close
        List<AttemptOutcome> outcomes;
        try (ConnectorRegistry connectors = ExecutorProcessMain.mcp(upstream.url());
             Executor restarted = Executor.start(new ExecutorConfig(props), connectors, new PrometheusRegistry())) {
            publish(prefix, later);
            outcomes = readUntil(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES,
                    values -> !values.isEmpty(), Duration.ofSeconds(60));
            assertThat(restarted.metrics().dispatched()).isEqualTo(1);
        }

        assertThat(outcomes).singleElement().satisfies(outcome -> {
            assertThat(outcome.getToolCallId()).isEqualTo("after-restart");
            assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.SUCCEEDED);
        });
        assertThat(upstream.calls()).as("one call per reservation, the killed one never again").hasSize(2);
        assertThat(upstream.applied()).isEqualTo(2);
        // the killed attempt has no outcome: the gate's lease timeout makes it UNKNOWN, for the status tool
        assertThat(readToEnd(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES))
                .extracting(AttemptOutcome::getToolCallId).containsExactly("after-restart");
    }
}
