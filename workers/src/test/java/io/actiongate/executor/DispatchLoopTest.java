package io.actiongate.executor;

import static io.actiongate.executor.Reservations.encode;
import static io.actiongate.executor.Reservations.key;
import static io.actiongate.executor.Reservations.live;
import static io.actiongate.executor.Reservations.reservation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class DispatchLoopTest {

    private static final String ATTEMPTS = "actiongate.attempts";
    private static final String OUTCOMES = "actiongate.outcomes";
    private static final TopicPartition P0 = new TopicPartition(ATTEMPTS, 0);
    private static final TopicPartition P1 = new TopicPartition(ATTEMPTS, 1);

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final RecordingConsumer consumer = new RecordingConsumer(events);
    private MockProducer<String, AttemptOutcome> producer =
            new MockProducer<>(true, null, new StringSerializer(), Topics.OUTCOMES.valueSerde().serializer());
    private final ExecutorMetrics metrics = new ExecutorMetrics(new PrometheusRegistry());
    private ExecutorService pool;
    private DispatchLoop loop;
    private RecordingConnector webhook;

    @AfterEach
    void stopPool() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    private void start(int threads, Function<DispatchRequest, DispatchResult> behaviour) {
        start(threads, behaviour, Clock.systemUTC());
    }

    private void start(int threads, Function<DispatchRequest, DispatchResult> behaviour, InstantSource clock) {
        webhook = new RecordingConnector("webhook", events, behaviour);
        pool = Executors.newFixedThreadPool(threads);
        loop = new DispatchLoop(consumer, producer, Topics.ATTEMPTS.valueSerde().deserializer(), ATTEMPTS,
                OUTCOMES, ConnectorRegistry.of(webhook), new OutcomeMapper("executor-test"), metrics, pool, threads,
                Duration.ofMillis(10), Duration.ofSeconds(5), clock, DispatchLoop.BatchHook.NONE);
        loop.subscribe();
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.rebalance(List.of(P0, P1));
    }

    private static AttemptReservation attempt(String callId, int attempt) {
        return AttemptReservation.newBuilder(live(callId, "webhook")).setAttempt(attempt).build();
    }

    private void add(TopicPartition partition, long offset, AttemptReservation reservation) {
        consumer.addRecord(new ConsumerRecord<>(ATTEMPTS, partition.partition(), offset, key(reservation),
                encode(reservation)));
    }

    private List<AttemptOutcome> outcomes() {
        return producer.history().stream().map(ProducerRecord::value).toList();
    }

    @Test
    void shouldCommitTheBatchBeforeAnyDispatch() {
        start(4, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-2", "webhook"));
        add(P1, 0, live("c-3", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(3);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        assertThat(events).hasSize(4);
        assertThat(events.get(0)).isEqualTo("commit:" + ATTEMPTS + "-0=2," + ATTEMPTS + "-1=1");
        assertThat(events.subList(1, 4)).containsExactlyInAnyOrder("dispatch:idem-c-1", "dispatch:idem-c-2",
                "dispatch:idem-c-3");
        assertThat(outcomes()).extracting(AttemptOutcome::getStatus).containsOnly(OutcomeStatus.SUCCEEDED);
        assertThat(producer.history()).extracting(ProducerRecord::key)
                .containsExactlyInAnyOrder("T-1/c-1", "T-1/c-2", "T-1/c-3");
        assertThat(metrics.dispatched()).isEqualTo(3);
    }

    @Test
    void shouldNeverDispatchOneAttemptTwiceHoweverOftenItIsReserved() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        // the same attempt twice in one batch (a gate state rolled back behind its reservation, or a replayed record)
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-1", "webhook"));
        add(P0, 2, live("c-2", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(2);
        // and once more in a later batch
        add(P0, 3, live("c-1", "webhook"));
        assertThat(loop.pollOnce()).isZero();
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        assertThat(webhook.dispatched).extracting(DispatchRequest::idempotencyKey)
                .containsExactlyInAnyOrder("idem-c-1", "idem-c-2");
        assertThat(metrics.duplicates()).isEqualTo(2);
        assertThat(consumer.committed.get(P0)).as("the duplicates are read past, not again").isEqualTo(4);
        assertThat(outcomes()).hasSize(2);
    }

    @Test
    void shouldDispatchTheNextAttemptOfAnActionUnderItsSameIdempotencyKey() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, attempt("c-1", 1));
        add(P0, 1, attempt("c-1", 2));

        assertThat(loop.pollOnce()).isEqualTo(2);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        assertThat(webhook.dispatched).extracting(DispatchRequest::attempt).containsExactlyInAnyOrder(1, 2);
        assertThat(metrics.duplicates()).isZero();
    }

    @Test
    void shouldRememberWhatAPreviousOwnerOfThePartitionDispatched() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        // another executor held P0 and committed past c-1's reservation (offset 0) and c-2's (offset 1)
        consumer.commitSync(Map.of(P0, new OffsetAndMetadata(2)));
        consumer.rebalance(List.of(P1));
        consumer.rebalance(List.of(P0, P1));
        events.clear();
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-2", "webhook"));
        assertThat(loop.pollOnce()).as("read back into the fence only").isZero();
        add(P0, 2, live("c-1", "webhook"));
        add(P0, 3, live("c-3", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(1);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        assertThat(webhook.dispatched).extracting(DispatchRequest::idempotencyKey).containsExactly("idem-c-3");
        assertThat(metrics.duplicates()).isEqualTo(1);
        assertThat(events.get(0)).as("the commit never goes back behind the previous owner's")
                .isEqualTo("commit:" + ATTEMPTS + "-0=4");
    }

    @Test
    void shouldDispatchAReservationReadAgainAfterAFailedCommitOnce() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, live("c-1", "webhook"));
        consumer.failNextCommit(new TimeoutException("commit timed out"));
        assertThat(loop.pollOnce()).isZero();
        add(P0, 0, live("c-1", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(1);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        assertThat(webhook.dispatched).extracting(DispatchRequest::idempotencyKey).containsExactly("idem-c-1");
        assertThat(metrics.duplicates()).isZero();
    }

    static Stream<Arguments> commitFailures() {
        return Stream.<Supplier<KafkaException>>of(
                        () -> new CommitFailedException(),
                        () -> new RebalanceInProgressException("rebalancing"),
                        () -> new WakeupException(),
                        () -> new FencedInstanceIdException("fenced"),
                        () -> new TimeoutException("commit timed out"))
                .map(failure -> Arguments.of(failure.get().getClass().getSimpleName(), failure));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commitFailures")
    void shouldDispatchNothingWhenTheCommitFails(String name, Supplier<KafkaException> failure) {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-2", "webhook"));
        consumer.failNextCommit(failure.get());

        assertThat(loop.pollOnce()).isZero();
        assertThat(loop.awaitAll(Duration.ofSeconds(1))).isTrue();

        assertThat(webhook.dispatched).isEmpty();
        assertThat(producer.history()).isEmpty();
        assertThat(metrics.commitFailures()).isEqualTo(1);
        // still assigned: the batch is read again instead of being skipped
        assertThat(consumer.position(P0)).isZero();
    }

    static Stream<Arguments> failuresAfterTheRequestWasSent() {
        return Stream.<Supplier<KafkaException>>of(
                        () -> new WakeupException(),
                        () -> new TimeoutException("commit timed out"))
                .map(failure -> Arguments.of(failure.get().getClass().getSimpleName(), failure));
    }

    // A graceful stop wakes the consumer up while a batch's commitSync is on its way: the broker commits it, the
    // call throws. Treated as not committed, the batch was neither dispatched here nor read again by the group.
    @ParameterizedTest(name = "{0}")
    @MethodSource("failuresAfterTheRequestWasSent")
    void shouldDispatchTheBatchOfACommitThatThrewButReachedTheBroker(String name, Supplier<KafkaException> failure) {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-2", "webhook"));
        add(P1, 0, live("c-3", "webhook"));
        consumer.landNextCommitThenFail(Set.of(P0, P1), null, failure.get());

        assertThat(loop.pollOnce()).isEqualTo(3);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();
        assertThat(webhook.dispatched).extracting(DispatchRequest::idempotencyKey)
                .containsExactlyInAnyOrder("idem-c-1", "idem-c-2", "idem-c-3");
        assertThat(outcomes()).hasSize(3);
        assertThat(metrics.commitFailures()).isEqualTo(1);
        // and nothing a second time: the positions stay past the batch, and the fence remembers it
        add(P0, 0, live("c-1", "webhook"));
        assertThat(loop.pollOnce()).isZero();
        assertThat(webhook.dispatched).hasSize(3);
    }

    @Test
    void shouldDispatchOnlyThePartitionsWhoseCommitReachedTheBrokerAndReadTheOthersAgain() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, live("c-1", "webhook"));
        add(P1, 0, live("c-2", "webhook"));
        consumer.landNextCommitThenFail(Set.of(P0), null, new WakeupException());

        assertThat(loop.pollOnce()).isEqualTo(1);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        assertThat(webhook.dispatched).extracting(DispatchRequest::idempotencyKey).containsExactly("idem-c-1");
        assertThat(consumer.position(P1)).as("rewound: read again, not skipped").isZero();
        assertThat(consumer.position(P0)).isEqualTo(1);
    }

    @Test
    void shouldNotTakeAnotherMembersCommitOfTheSameOffsetsForItsOwn() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, live("c-1", "webhook"));
        // the same offset committed, but not by this commit: another member read the batch and dispatched it
        consumer.landNextCommitThenFail(Set.of(P0), "", new TimeoutException("commit timed out"));

        assertThat(loop.pollOnce()).isZero();
        assertThat(loop.awaitAll(Duration.ofSeconds(1))).isTrue();

        assertThat(webhook.dispatched).isEmpty();
        assertThat(consumer.position(P0)).isZero();
    }

    @Test
    void shouldAnswerAnExpiredLeaseWithNotDispatchedAndNeverCallTheConnector() {
        start(2, request -> DispatchResult.succeeded(200, "r-1"));
        add(P0, 0, reservation("c-old", "webhook", Instant.now().minusSeconds(1)));
        add(P0, 1, live("c-new", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(1);
        loop.awaitAll(Duration.ofSeconds(5));

        assertThat(webhook.dispatched).extracting(DispatchRequest::idempotencyKey).containsExactly("idem-c-new");
        AttemptOutcome expired = outcomes().stream().filter(o -> o.getToolCallId().equals("c-old")).findFirst()
                .orElseThrow();
        assertThat(expired.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
        assertThat(expired.getDispatched()).isFalse();
        assertThat(expired.getErrorCode()).isEqualTo("LEASE_EXPIRED");
        assertThat(expired.getExecutorId()).isEqualTo("executor-test");
        assertThat(metrics.leaseExpired()).isEqualTo(1);
        assertThat(consumer.committed).containsEntry(P0, 2L);
    }

    @Test
    void shouldFetchNothingWhileTheDispatchPoolIsFullAndFetchAgainAsSoonAsADispatchFinishes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(2, request -> {
            await(release);
            return DispatchResult.succeeded(200, "r");
        });
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-2", "webhook"));
        add(P1, 0, live("c-3", "webhook"));

        loop.pollOnce();
        // two threads busy, one reservation queued: room for one more in the queue, so it keeps fetching
        add(P1, 1, live("c-4", "webhook"));
        assertThat(loop.pollOnce()).isEqualTo(1);
        assertThat(loop.inFlight()).isEqualTo(4);

        // full: the loop neither fetches nor commits the next record; it waits for a free thread, bounded
        add(P0, 2, live("c-5", "webhook"));
        long started = System.nanoTime();
        assertThat(loop.pollOnce()).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(DispatchLoop.FULL_WAIT);
        assertThat(consumer.committed).containsEntry(P0, 2L); // c-5 (offset 2) is neither read nor committed
        assertThat(webhook.dispatched).hasSizeLessThanOrEqualTo(2);
        assertThat(metrics.pauses()).isEqualTo(1);

        // a finished dispatch ends the wait at once, not after the whole bound
        Thread releaser = new Thread(() -> {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            release.countDown();
        });
        releaser.start();
        started = System.nanoTime();
        assertThat(loop.pollOnce()).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(DispatchLoop.FULL_WAIT.multipliedBy(10));
        releaser.join();
        assertThat(consumer.committed).containsEntry(P0, 3L);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();
        assertThat(webhook.dispatched).hasSize(5);
    }

    @Test
    void shouldTakeTheNextReservationWhileTheLastOutcomeAwaitsItsAcknowledgementAndRevocationWaitsForIt() {
        // acknowledgements arrive only when the test completes them
        producer = new MockProducer<>(false, null, new StringSerializer(), Topics.OUTCOMES.valueSerde().serializer());
        start(1, request -> DispatchResult.succeeded(200, "r"));
        add(P0, 0, live("c-1", "webhook"));
        add(P0, 1, live("c-2", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(2);

        // one dispatch thread: it used to wait for c-1's acknowledgement before it took c-2
        awaitUntil(() -> producer.history().size() == 2);
        assertThat(webhook.dispatched).hasSize(2);
        assertThat(loop.inFlight()).isZero();
        assertThat(metrics.outcomesProduced()).isZero();
        // revocation and shutdown still wait for the outcomes, not just their sends
        assertThat(loop.awaitInFlight(List.of(P0), Duration.ofMillis(50))).isFalse();

        assertThat(producer.completeNext()).isTrue();
        assertThat(producer.completeNext()).isTrue();
        assertThat(loop.awaitInFlight(List.of(P0), Duration.ofSeconds(5))).isTrue();
        assertThat(metrics.outcomesProduced()).isEqualTo(2);
    }

    @Test
    void shouldCountAnOutcomeThatCouldNotBeProducedAsReportedWithoutCountingItProduced() {
        producer = new MockProducer<>(false, null, new StringSerializer(), Topics.OUTCOMES.valueSerde().serializer());
        start(1, request -> DispatchResult.succeeded(200, "r"));
        add(P0, 0, live("c-1", "webhook"));
        loop.pollOnce();
        awaitUntil(() -> producer.history().size() == 1);

        assertThat(producer.errorNext(new TimeoutException("no ack"))).isTrue();

        assertThat(loop.awaitInFlight(List.of(P0), Duration.ofSeconds(5))).isTrue();
        assertThat(metrics.outcomesProduced()).isZero();
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            sleep(5);
        }
    }

    @Test
    void shouldSkipAndCountUndecodableRecords() {
        start(2, request -> DispatchResult.succeeded(200, "r"));
        consumer.addRecord(new ConsumerRecord<>(ATTEMPTS, 0, 0, "T-1/bad", new byte[] {1, 2, 3}));
        add(P0, 1, live("c-1", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(1);
        loop.awaitAll(Duration.ofSeconds(5));

        assertThat(metrics.undecodable()).isEqualTo(1);
        assertThat(webhook.dispatched).hasSize(1);
        assertThat(consumer.committed).containsEntry(P0, 2L);
    }

    @Test
    void shouldStopOnAReservationOfANewerVersionBeforeCommittingDispatchingOrAnsweringAnything() {
        start(2, request -> DispatchResult.succeeded(200, "r"));
        add(P0, 0, live("c-1", "webhook"));
        // an expired lease would be answered NOT_DISPATCHED while the batch is read: not before the check
        add(P0, 1, AttemptReservation.newBuilder(live("c-2", "webhook")).setLeaseExpiresAt(Instant.EPOCH).build());
        byte[] newer = encode(live("c-3", "webhook"));
        for (int i = 2; i < 10; i++) {
            newer[i] ^= 0x5A; // another fingerprint: a schema version a newer gate writes
        }
        consumer.addRecord(new ConsumerRecord<>(ATTEMPTS, 1, 7, "T-1/c-3", newer));

        assertThatThrownBy(loop::pollOnce).isInstanceOf(io.actiongate.serde.UnknownFormatException.class)
                .hasMessageContaining("stops: actiongate.attempts-1@7 holds AttemptReservation with fingerprint ")
                .hasMessageContaining("it reads AttemptReservation v1 to v2");

        assertThat(consumer.committed).as("nothing committed: the release that reads it dispatches it").isEmpty();
        assertThat(webhook.dispatched).isEmpty();
        assertThat(outcomes()).isEmpty();
        assertThat(metrics.undecodable()).as("not skipped as undecodable").isZero();
    }

    @Test
    void shouldReportAnUnknownProviderAsNotDispatched() {
        start(2, request -> DispatchResult.succeeded(200, "r"));
        add(P0, 0, live("c-1", "carrier-pigeon"));

        loop.pollOnce();
        loop.awaitAll(Duration.ofSeconds(5));

        assertThat(webhook.dispatched).isEmpty();
        AttemptOutcome outcome = outcomes().get(0);
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
        assertThat(outcome.getDispatched()).isFalse();
        assertThat(outcome.getErrorCode()).isEqualTo("UNKNOWN_PROVIDER_METHOD");
    }

    @Test
    void shouldReportAConnectorThatThrowsAsUnknown() {
        start(2, request -> {
            throw new IllegalStateException("socket closed token=abc");
        });
        add(P0, 0, live("c-1", "webhook"));

        loop.pollOnce();
        loop.awaitAll(Duration.ofSeconds(5));

        AttemptOutcome outcome = outcomes().get(0);
        assertThat(outcome.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
        assertThat(outcome.getDispatched()).isTrue();
        assertThat(outcome.getErrorCode()).isEqualTo(OutcomeMapper.CONNECTOR_ERROR);
        assertThat(outcome.getErrorDetail()).doesNotContain("abc");
    }

    @Test
    void shouldNotDispatchAReservationWhoseLeasePassedWhileQueued() {
        AtomicReference<Instant> now = new AtomicReference<>(Instant.now()); // the loop's clock
        start(1, request -> DispatchResult.succeeded(200, "r"), now::get);
        add(P0, 0, reservation("c-1", "webhook", now.get().plusSeconds(60)));
        CountDownLatch hold = new CountDownLatch(1);
        pool.execute(() -> await(hold));
        assertThat(loop.pollOnce()).as("live when read: committed and queued behind the busy thread").isEqualTo(1);
        now.set(now.get().plusSeconds(61)); // the lease passes while it waits
        hold.countDown();
        loop.awaitAll(Duration.ofSeconds(5));

        assertThat(webhook.dispatched).isEmpty();
        assertThat(outcomes()).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
            assertThat(o.getErrorCode()).isEqualTo("LEASE_EXPIRED");
        });
    }

    @Test
    void shouldWaitOnRevocationUntilInFlightDispatchesProducedTheirOutcomes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(2, request -> {
            await(release);
            return DispatchResult.succeeded(200, "r");
        });
        add(P0, 0, live("c-1", "webhook"));
        loop.pollOnce();
        Thread revoking = new Thread(() -> loop.onPartitionsRevoked(List.of(P0)), "revoking");
        revoking.start();

        awaitUntil(() -> revoking.getState() == Thread.State.TIMED_WAITING || !revoking.isAlive());
        assertThat(revoking.isAlive()).as("the revocation waits while the dispatch runs").isTrue();
        assertThat(outcomes()).isEmpty();
        release.countDown();
        revoking.join(10_000);
        assertThat(revoking.isAlive()).isFalse();
        assertThat(outcomes()).hasSize(1);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A MockConsumer that logs commits into the shared event list and can fail the next commit. */
    static final class RecordingConsumer extends MockConsumer<String, byte[]> {
        private final List<String> events;
        final Map<TopicPartition, Long> committed = new java.util.concurrent.ConcurrentHashMap<>();
        private KafkaException nextCommitFailure;
        private java.util.function.Consumer<Map<TopicPartition, OffsetAndMetadata>> landThenFail;

        RecordingConsumer(List<String> events) {
            super("earliest");
            this.events = events;
        }

        void failNextCommit(KafkaException failure) {
            nextCommitFailure = failure;
        }

        /**
         * The next commit reaches the broker for {@code partitions} (with the offsets and metadata asked for, or
         * {@code otherMetadata} when not null: another member's commit of the same offsets), then throws
         * {@code failure}, as a {@code wakeup()} or a timeout does after the request was sent.
         */
        void landNextCommitThenFail(Set<TopicPartition> partitions, String otherMetadata, KafkaException failure) {
            landThenFail = offsets -> {
                Map<TopicPartition, OffsetAndMetadata> landed = new HashMap<>();
                offsets.forEach((partition, offset) -> {
                    if (partitions.contains(partition)) {
                        landed.put(partition, otherMetadata == null ? offset
                                : new OffsetAndMetadata(offset.offset(), otherMetadata));
                    }
                });
                super.commitSync(landed);
                throw failure;
            };
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            if (landThenFail != null) {
                java.util.function.Consumer<Map<TopicPartition, OffsetAndMetadata>> next = landThenFail;
                landThenFail = null;
                next.accept(offsets);
            }
            if (nextCommitFailure != null) {
                KafkaException failure = nextCommitFailure;
                nextCommitFailure = null;
                throw failure;
            }
            super.commitSync(offsets);
            StringBuilder entry = new StringBuilder("commit:");
            offsets.entrySet().stream().sorted(Map.Entry.comparingByKey(
                            java.util.Comparator.comparing(TopicPartition::toString)))
                    .forEach(e -> entry.append(entry.length() > 7 ? "," : "").append(e.getKey()).append('=')
                            .append(e.getValue().offset()));
            offsets.forEach((partition, offset) -> committed.put(partition, offset.offset()));
            events.add(entry.toString());
        }
    }

    @Test
    void shouldContinueTheReservationsTraceInTheDispatchAndTheOutcome() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        List<Map<String, String>> seenByConnector = new CopyOnWriteArrayList<>();
        start(2, request -> {
            seenByConnector.add(io.actiongate.connector.spi.Tracing.currentHeaders());
            return DispatchResult.succeeded(200, "r-1");
        });
        AttemptReservation traced = live("c-1", "webhook");
        org.apache.kafka.common.header.internals.RecordHeaders headers =
                new org.apache.kafka.common.header.internals.RecordHeaders();
        headers.add("traceparent", traceparent.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        consumer.addRecord(new ConsumerRecord<>(ATTEMPTS, 0, 0, 0L,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, -1, -1, key(traced), encode(traced),
                headers, java.util.Optional.empty()));
        add(P1, 0, live("c-2", "webhook"));

        assertThat(loop.pollOnce()).isEqualTo(2);
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();

        // without an OpenTelemetry SDK the carried context itself is current: same trace id and parent
        assertThat(seenByConnector).hasSize(2).contains(Map.of("traceparent", traceparent), Map.of());
        ProducerRecord<String, AttemptOutcome> outcome = producer.history().stream()
                .filter(r -> r.key().equals("T-1/c-1")).findFirst().orElseThrow();
        assertThat(new String(outcome.headers().lastHeader("traceparent").value(),
                java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo(traceparent);
        ProducerRecord<String, AttemptOutcome> untraced = producer.history().stream()
                .filter(r -> r.key().equals("T-1/c-2")).findFirst().orElseThrow();
        assertThat(untraced.headers().lastHeader("traceparent")).isNull();
    }
}
