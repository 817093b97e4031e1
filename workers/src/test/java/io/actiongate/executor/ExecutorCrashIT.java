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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.sandbox.SandboxWebhookProvider.Fault;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** An executor JVM killed with SIGKILL after the offset commit never causes a second dispatch. */
class ExecutorCrashIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static SandboxWebhookProvider sandbox;
    private final List<Process> processes = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startSandbox() {
        sandbox = SandboxWebhookProvider.start();
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    @AfterEach
    void killLeftovers() {
        processes.forEach(Process::destroyForcibly);
    }

    private Process spawn(String prefix, String group, String mode, List<String> stdout) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), ExecutorProcessMain.class.getName(),
                KAFKA.bootstrapServers(), prefix, group, sandbox.baseUri().toString(), mode)
                .redirectErrorStream(true);
        Process process = builder.start();
        processes.add(process);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    stdout.add(line);
                }
            } catch (IOException e) {
                // the process was killed
            }
        }, "executor-process-stdout");
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly(); // SIGKILL on Unix: no shutdown hook, no LeaveGroup, no flush
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    private static void publish(String prefix, AttemptReservation reservation) {
        produce(KAFKA.bootstrapServers(), Topics.ATTEMPTS.name(prefix), Topics.ATTEMPTS,
                Map.of(key(reservation), reservation));
    }

    @Test
    void shouldNeverDispatchAgainAfterTheExecutorIsKilledAroundTheDispatch(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        String group = TestNames.applicationId(test);
        // both executor JVMs start now, while the topics are made; each runs its executor when told
        List<String> firstOut = new CopyOnWriteArrayList<>();
        Process first = spawn(prefix, group, "block-before-dispatch", firstOut);
        Process second = spawn(prefix, group, "normal", new CopyOnWriteArrayList<>());
        createTopics(KAFKA.admin(), prefix, 1); // one partition: later reservations prove earlier offsets passed
        AttemptReservation beforeDispatch = live("killed-before-dispatch", "webhook");
        AttemptReservation afterDispatch = live("killed-after-dispatch", "webhook");
        AttemptReservation afterRestart = live("after-restart", "webhook");

        // 1. killed after the commit, before the connector sent anything
        ExecutorProcessMain.start(first);
        publish(prefix, beforeDispatch);
        await().atMost(Duration.ofSeconds(90)).until(() -> firstOut.stream()
                .anyMatch(line -> line.equals(ExecutorProcessMain.ENTERED + beforeDispatch.getIdempotencyKey())));
        kill(first);
        assertThat(sandbox.requests(beforeDispatch.getIdempotencyKey())).isZero();

        // 2. killed after the provider applied the effect, before the outcome was produced
        sandbox.program(Fault.delayAfterApply(afterDispatch.getIdempotencyKey(), Duration.ofSeconds(60)));
        ExecutorProcessMain.start(second);
        publish(prefix, afterDispatch);
        await().atMost(Duration.ofSeconds(90)).until(() -> sandbox.effects(afterDispatch.getIdempotencyKey()) == 1);
        kill(second);

        // 3. a fresh executor in the same group takes over
        Map<String, Object> props = new HashMap<>();
        props.put(ExecutorConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ExecutorConfig.TOPIC_PREFIX_CONFIG, prefix);
        props.put(ExecutorConfig.GROUP_ID_CONFIG, group);
        props.put(ExecutorConfig.POLL_TIMEOUT_CONFIG, "100");
        props.put(ExecutorConfig.CONSUMER_PREFIX + "fetch.max.wait.ms", "100"); // no held fetch to wait out at close
        List<AttemptOutcome> outcomes;
        try (Executor restarted = Executor.start(new ExecutorConfig(props),
                ItSupport.registry(sandbox.baseUri(), Duration.ofSeconds(5)), new PrometheusRegistry())) {
            publish(prefix, afterRestart);
            outcomes = readUntil(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES,
                    values -> !values.isEmpty(), Duration.ofSeconds(60));
            assertThat(restarted.metrics().dispatched()).isEqualTo(1);
        }

        assertThat(outcomes).singleElement().satisfies(outcome -> {
            assertThat(outcome.getToolCallId()).isEqualTo("after-restart");
            assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.SUCCEEDED);
        });
        assertThat(sandbox.requests(beforeDispatch.getIdempotencyKey())).isZero();
        assertThat(sandbox.requests(afterDispatch.getIdempotencyKey())).isEqualTo(1);
        assertThat(sandbox.requests(afterRestart.getIdempotencyKey())).isEqualTo(1);
        // neither killed attempt has an outcome: the gate's lease timeout turns both into UNKNOWN
        assertThat(readToEnd(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES))
                .extracting(AttemptOutcome::getToolCallId).containsExactly("after-restart");
    }
}
