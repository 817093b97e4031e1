package io.actiongate.executor;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static io.actiongate.executor.ItSupport.readToEnd;
import static io.actiongate.executor.ItSupport.readUntil;
import static io.actiongate.executor.Reservations.key;
import static io.actiongate.executor.Reservations.live;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.sandbox.SandboxWebhookProvider.Fault;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class ExecutorIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static SandboxWebhookProvider sandbox;

    @BeforeAll
    static void startSandbox() {
        sandbox = SandboxWebhookProvider.start();
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    private static Map<String, Object> config(String prefix, String group) {
        Map<String, Object> props = new HashMap<>();
        props.put(ExecutorConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ExecutorConfig.TOPIC_PREFIX_CONFIG, prefix);
        props.put(ExecutorConfig.GROUP_ID_CONFIG, group);
        props.put(ExecutorConfig.POLL_TIMEOUT_CONFIG, "100");
        // a fetch the broker holds longer than a poll waits only holds up each close (500 ms by default)
        props.put(ExecutorConfig.CONSUMER_PREFIX + "fetch.max.wait.ms", "100");
        props.put(ExecutorConfig.CONSUMER_PREFIX + "session.timeout.ms", "3000");
        props.put(ExecutorConfig.CONSUMER_PREFIX + "heartbeat.interval.ms", "300");
        return props;
    }

    /** As {@link #config}, with an executor id its outcomes carry. */
    private static Map<String, Object> config(String prefix, String group, String executorId) {
        Map<String, Object> props = config(prefix, group);
        props.put(ExecutorConfig.EXECUTOR_ID_CONFIG, executorId);
        return props;
    }

    /** Waits until {@code group} is stable with {@code members} members (0: every member left). */
    private static void awaitMembers(String group, int members) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            ConsumerGroupDescription description = KAFKA.admin().describeConsumerGroups(List.of(group))
                    .describedGroups().get(group).get();
            return description.members().size() == members
                    && (members == 0 || description.groupState() == GroupState.STABLE);
        });
    }

    private static ConnectorRegistry connectors() {
        return ItSupport.registry(sandbox.baseUri(), Duration.ofSeconds(5));
    }

    private static void publish(String prefix, List<AttemptReservation> reservations) {
        Map<String, AttemptReservation> records = new LinkedHashMap<>();
        reservations.forEach(r -> records.put(key(r), r));
        produce(KAFKA.bootstrapServers(), Topics.ATTEMPTS.name(prefix), Topics.ATTEMPTS, records);
    }

    @Test
    void shouldDispatchEachOfAThousandReservationsExactlyOnce(TestInfo test) {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 3);
        List<AttemptReservation> reservations = java.util.stream.IntStream.range(0, 1_000)
                .mapToObj(i -> live("thousand-" + i, "webhook")).toList();
        Map<String, Object> props = config(prefix, TestNames.applicationId(test));
        props.put(ExecutorConfig.MAX_POLL_RECORDS_CONFIG, "100");

        List<AttemptOutcome> outcomes;
        try (Executor executor = Executor.start(new ExecutorConfig(props), connectors(), new PrometheusRegistry())) {
            publish(prefix, reservations);
            outcomes = readUntil(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES,
                    values -> values.size() >= 1_000, Duration.ofSeconds(90));
            assertThat(executor.metrics().dispatched()).isEqualTo(1_000);
        }

        assertThat(outcomes).hasSize(1_000);
        assertThat(outcomes).extracting(AttemptOutcome::getStatus).containsOnly(OutcomeStatus.SUCCEEDED);
        assertThat(outcomes.stream().map(AttemptOutcome::getToolCallId).collect(Collectors.toSet())).hasSize(1_000);
        for (AttemptReservation r : reservations) {
            assertThat(sandbox.requests(r.getIdempotencyKey())).as(r.getIdempotencyKey()).isEqualTo(1);
        }
    }

    @Test
    void shouldDispatchNothingAfterResumingWhenAnotherExecutorTookThePartition(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 1);
        String group = TestNames.applicationId(test);
        Map<String, Object> shortLived = config(prefix, group, "paused-executor");
        shortLived.put(ExecutorConfig.CONSUMER_PREFIX + "max.poll.interval.ms", "1500");
        StallFirstBatch stallOnce = new StallFirstBatch();
        AttemptReservation reservation = live("paused", "webhook");
        AttemptReservation later = live("after-resume", "webhook");

        Executor paused = Executor.start(new ExecutorConfig(shortLived), connectors(), new PrometheusRegistry(),
                stallOnce);
        Executor other;
        try (paused) {
            publish(prefix, List.of(reservation));
            assertThat(stallOnce.stalled.await(30, TimeUnit.SECONDS)).isTrue();
            awaitMembers(group, 0); // past max.poll.interval.ms: the stalled member left the group

            other = Executor.start(new ExecutorConfig(config(prefix, group, "other-executor")), connectors(),
                    new PrometheusRegistry());
            try (other) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> sandbox.requests(reservation.getIdempotencyKey()) == 1);
                await().atMost(Duration.ofSeconds(10)).until(() -> other.metrics().outcomesProduced() == 1);

                stallOnce.resume.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> paused.metrics().commitFailures() == 1);
                // the resumed one rejoins; a reservation published then is read by whichever member holds the
                // partition now: were it the resumed one reading its stale batch again, it would meet that first
                awaitMembers(group, 2);
                publish(prefix, List.of(later));
                await().atMost(Duration.ofSeconds(30)).until(() -> sandbox.requests(later.getIdempotencyKey()) == 1);
            } // each close waits for the dispatches its executor began
        }

        List<AttemptOutcome> outcomes = readToEnd(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix),
                Topics.OUTCOMES);
        assertThat(outcomes).extracting(AttemptOutcome::getToolCallId)
                .containsExactlyInAnyOrder("paused", "after-resume");
        assertThat(outcomes).filteredOn(o -> o.getToolCallId().equals("paused"))
                .extracting(AttemptOutcome::getExecutorId).containsExactly("other-executor");
        boolean laterByPaused = outcomes.stream().anyMatch(o -> o.getToolCallId().equals("after-resume")
                && o.getExecutorId().equals("paused-executor"));
        assertThat(paused.metrics().dispatched()).as("the stalled batch never, the later one if it holds it now")
                .isEqualTo(laterByPaused ? 1 : 0);
        assertThat(paused.metrics().dispatched() + other.metrics().dispatched()).isEqualTo(2);
        assertThat(sandbox.requests(reservation.getIdempotencyKey())).isEqualTo(1);
    }

    @Test
    void shouldDispatchTheBatchItWasCommittingWhenAskedToStop(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 1);
        String group = TestNames.applicationId(test);
        // a graceful stop (SIGTERM) that arrives while a batch is between its poll and its commit, as when an
        // executor is stopped right after it read a backlog
        StallFirstBatch stallOnce = new StallFirstBatch();
        AttemptReservation reservation = live("stopped-mid-batch", "webhook");

        Executor stopping = Executor.start(new ExecutorConfig(config(prefix, group)), connectors(),
                new PrometheusRegistry(), stallOnce);
        publish(prefix, List.of(reservation));
        assertThat(stallOnce.stalled.await(30, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(stopping::close, "closer");
        closer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> closer.getState() == Thread.State.WAITING);
        stallOnce.resume.countDown();
        closer.join(30_000);
        assertThat(closer.isAlive()).isFalse();

        // whatever the stopped one committed, the reservation is dispatched once: by it, or by the next member
        AttemptReservation later = live("after-stop", "webhook");
        Executor next = Executor.start(new ExecutorConfig(config(prefix, group)), connectors(),
                new PrometheusRegistry());
        try (next) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> sandbox.requests(reservation.getIdempotencyKey()) == 1);
            // and not a second time: the next member reads a later reservation of the partition only after it
            publish(prefix, List.of(later));
            await().atMost(Duration.ofSeconds(30)).until(() -> sandbox.requests(later.getIdempotencyKey()) == 1);
        } // the close waits for the dispatches it began
        assertThat(stopping.metrics().dispatched() + next.metrics().dispatched())
                .as("the reservation and the later one").isEqualTo(2);
        assertThat(sandbox.requests(reservation.getIdempotencyKey())).isEqualTo(1);
        assertThat(readToEnd(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES))
                .extracting(AttemptOutcome::getToolCallId, AttemptOutcome::getStatus)
                .containsExactlyInAnyOrder(tuple("stopped-mid-batch", OutcomeStatus.SUCCEEDED),
                        tuple("after-stop", OutcomeStatus.SUCCEEDED));
    }

    @Test
    void shouldReportA429AsRetryableWithRetryAtFromRetryAfterSecondsOrHttpDate(TestInfo test) {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 1);
        AttemptReservation seconds = live("limited-seconds", "webhook");
        AttemptReservation date = live("limited-date", "webhook");
        // a minute ahead (well inside the 600 s cap): a date the dispatch reaches only after it has passed is
        // rightly read as "now", which made a 3-second lead fail on a loaded machine
        Instant dateValue = Instant.now().plusSeconds(60).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        sandbox.program(Fault.rateLimit(seconds.getIdempotencyKey(), 1, "2"));
        sandbox.program(Fault.rateLimit(date.getIdempotencyKey(), 1,
                DateTimeFormatter.RFC_1123_DATE_TIME.format(dateValue.atZone(ZoneOffset.UTC))));

        List<AttemptOutcome> outcomes;
        try (Executor executor = Executor.start(new ExecutorConfig(config(prefix, TestNames.applicationId(test))),
                connectors(), new PrometheusRegistry())) {
            publish(prefix, List.of(seconds, date));
            outcomes = readUntil(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES,
                    values -> values.size() >= 2, Duration.ofSeconds(30));
            assertThat(executor.metrics().dispatched()).isEqualTo(2);
        }

        assertThat(outcomes).hasSize(2).allSatisfy(outcome -> {
            assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.RETRYABLE);
            assertThat(outcome.getDispatched()).isTrue();
            assertThat(outcome.getHttpStatus()).isEqualTo(429);
            assertThat(outcome.getErrorCode()).isEqualTo("RATE_LIMITED");
        });
        AttemptOutcome bySeconds = outcomes.stream().filter(o -> o.getToolCallId().equals("limited-seconds"))
                .findFirst().orElseThrow();
        // two seconds after the answer, which came while the dispatch ran: a window of the dispatch's own length,
        // not a fixed half second around its end that a stalled thread on a loaded machine could overrun
        assertThat(bySeconds.getRetryAt()).isBetween(bySeconds.getStartedAt().plusSeconds(2),
                bySeconds.getFinishedAt().plusSeconds(2));
        AttemptOutcome byDate = outcomes.stream().filter(o -> o.getToolCallId().equals("limited-date"))
                .findFirst().orElseThrow();
        assertThat(byDate.getRetryAt()).isEqualTo(dateValue);
        assertThat(sandbox.effects(seconds.getIdempotencyKey())).isZero();
        assertThat(sandbox.effects(date.getIdempotencyKey())).isZero();
    }
    @Test
    void shouldReportFailuresAfterSendingAsUnknownThroughTheRealWebhookConnector(TestInfo test) {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 1);
        AttemptReservation error = live("after-apply-500", "webhook");
        AttemptReservation dropped = live("after-apply-drop", "webhook");
        AttemptReservation slow = live("after-apply-timeout", "webhook");
        sandbox.program(Fault.errorAfterApply(error.getIdempotencyKey()));
        sandbox.program(Fault.dropAfterApply(dropped.getIdempotencyKey()));
        sandbox.program(Fault.delayAfterApply(slow.getIdempotencyKey(), Duration.ofSeconds(3)));

        List<AttemptOutcome> outcomes;
        try (Executor executor = Executor.start(new ExecutorConfig(config(prefix, TestNames.applicationId(test))),
                ItSupport.registry(sandbox.baseUri(), Duration.ofMillis(800)), new PrometheusRegistry())) {
            publish(prefix, List.of(error, dropped, slow));
            outcomes = readUntil(KAFKA.bootstrapServers(), Topics.OUTCOMES.name(prefix), Topics.OUTCOMES,
                    values -> values.size() >= 3, Duration.ofSeconds(30));
            assertThat(executor.metrics().dispatched()).isEqualTo(3);
        }

        assertThat(outcomes).hasSize(3).allSatisfy(outcome -> {
            assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
            assertThat(outcome.getDispatched()).isTrue();
            assertThat(outcome.getRetryAt()).isNull();
            assertThat(outcome.getErrorDetail()).doesNotContain("a@example.com");
        });
        for (AttemptReservation r : List.of(error, dropped, slow)) {
            assertThat(sandbox.requests(r.getIdempotencyKey())).isEqualTo(1);
            assertThat(sandbox.effects(r.getIdempotencyKey())).isEqualTo(1);
        }
    }

    /** Holds the first batch between its poll and its commit until {@link #resume} is counted down (30 s at most). */
    private static final class StallFirstBatch implements DispatchLoop.BatchHook {
        final CountDownLatch stalled = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        private final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        public void afterPoll(ConsumerRecords<String, byte[]> records) {
            if (first.getAndSet(false)) {
                stalled.countDown();
                try {
                    resume.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
