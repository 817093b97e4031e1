package io.actiongate.executor;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.opentelemetry.api.trace.SpanKind;

import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.connector.spi.Attachment;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.Tracing;
import io.actiongate.key.ActionKey;
import io.actiongate.key.ActionLogContext;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.TraceHeaders;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.storage.AttachmentRef;
import io.actiongate.storage.PreDispatchCheck;
import io.actiongate.storage.Verification;

/**
 * The executor's poll loop: the single dispatch fence of docs/contract.md section 5. Single-threaded except for
 * the dispatch pool; {@link #pollOnce()} is the unit the tests drive.
 *
 * <p>Per batch: decode, answer expired leases with NOT_DISPATCHED, {@code commitSync} the whole batch, and only
 * for the partitions whose commit is on the broker hand the reservations to the pool. A reservation is therefore
 * dispatched at most once by the group: after the commit no other member will read it again, and without the
 * commit this member sends nothing. A commit that threw is read back: if it landed all the same, the group will
 * not read those records again, so this member dispatches them.
 */
final class DispatchLoop implements ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);

    /** Runs on the poll thread after a non-empty poll, before the commit. Tests use it to stall the loop. */
    interface BatchHook {
        BatchHook NONE = records -> { };

        void afterPoll(ConsumerRecords<String, byte[]> records);
    }

    private final Consumer<String, byte[]> consumer;
    private final Producer<String, AttemptOutcome> producer;
    private final Deserializer<AttemptReservation> reservations;
    private final String attemptsTopic;
    private final String outcomesTopic;
    private final ConnectorRegistry connectors;
    private final OutcomeMapper mapper;
    private final ExecutorMetrics metrics;
    private final ExecutorService pool;
    private final int capacity;
    /**
     * How long one wait for a free dispatch slot lasts at most before the loop comes round again (to notice that it
     * is closing): a finished dispatch ends the wait at once.
     */
    static final Duration FULL_WAIT = Duration.ofMillis(100);

    private final Duration pollTimeout;
    private final Duration revocationTimeout;
    private final InstantSource clock;
    private final BatchHook hook;

    /** Attachments and live schema hash, right before a connector sees the reservation. */
    private volatile PreDispatchCheck preDispatch = PreDispatchCheck.WITHOUT_STORAGE;

    /** How many reservations per partition the duplicate fence remembers unless told otherwise. */
    static final int DEFAULT_FENCE_RECORDS = 10_000;
    /** No second dispatch of one attempt (poll thread only). */
    private DuplicateFence fence = new DuplicateFence(DEFAULT_FENCE_RECORDS);
    /** Per partition held: offsets below this were committed before this executor got it, read only for the fence. */
    private final Map<TopicPartition, Long> historyEnd = new HashMap<>();

    /** How long reading the committed offsets back after a failed commit may take. */
    static final Duration COMMIT_READBACK = Duration.ofSeconds(10);
    /** This loop's part of each commit's token (the offset metadata): unique per loop, and per commit with the count. */
    private final String instance = UUID.randomUUID().toString();
    private long commits;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final Map<TopicPartition, Set<CompletableFuture<Void>>> inFlightByPartition = new ConcurrentHashMap<>();
    /** Signalled when a dispatch slot frees up while the poll thread waits for one. */
    private final Object room = new Object();

    DispatchLoop(Consumer<String, byte[]> consumer, Producer<String, AttemptOutcome> producer,
                 Deserializer<AttemptReservation> reservations, String attemptsTopic, String outcomesTopic,
                 ConnectorRegistry connectors, OutcomeMapper mapper, ExecutorMetrics metrics, ExecutorService pool,
                 int capacity, Duration pollTimeout, Duration revocationTimeout, InstantSource clock, BatchHook hook) {
        this.consumer = consumer;
        this.producer = producer;
        this.reservations = reservations;
        this.attemptsTopic = attemptsTopic;
        this.outcomesTopic = outcomesTopic;
        this.connectors = connectors;
        this.mapper = mapper;
        this.metrics = metrics;
        this.pool = pool;
        this.capacity = capacity;
        this.pollTimeout = pollTimeout;
        this.revocationTimeout = revocationTimeout;
        this.clock = clock;
        this.hook = hook;
    }

    void preDispatch(PreDispatchCheck check) {
        this.preDispatch = check;
    }

    /** Remember the last {@code records} reservations of each partition against a second dispatch (0: none). */
    void duplicateFence(int records) {
        this.fence = new DuplicateFence(records);
    }

    void subscribe() {
        consumer.subscribe(List.of(attemptsTopic), this);
    }

    /** One poll, fence and hand-off. Returns the number of reservations handed to the dispatch pool. */
    int pollOnce() {
        if (!awaitRoom()) {
            return 0;
        }
        ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout);
        if (records.isEmpty()) {
            return 0;
        }
        hook.afterPoll(records);
        refuseNewerVersions(records);
        Instant now = clock.instant();
        String token = commitToken();
        List<Pending> accepted = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<TopicPartition, Long> firstOffsets = new HashMap<>();
        Map<TopicPartition, Map<String, Long>> read = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<String, byte[]>> batch = live(partition, records.records(partition));
            if (batch.isEmpty()) {
                continue;
            }
            firstOffsets.put(partition, batch.get(0).offset());
            ConsumerRecord<String, byte[]> last = batch.get(batch.size() - 1);
            offsets.put(partition, new OffsetAndMetadata(last.offset() + 1, last.leaderEpoch(), token));
            Map<String, Long> readHere = read.computeIfAbsent(partition, p -> new HashMap<>());
            for (ConsumerRecord<String, byte[]> record : batch) {
                AttemptReservation reservation = decode(record);
                if (reservation == null) {
                    continue;
                }
                String attemptKey = DuplicateFence.attemptKey(reservation);
                Long first = readHere.get(attemptKey);
                if (first == null) {
                    OptionalLong seen = fence.firstSeen(partition, attemptKey);
                    first = seen.isPresent() ? seen.getAsLong() : null;
                }
                if (first != null) {
                    metrics.recordDuplicate();
                    LOG.warn("attempt {} of {}/{} reserved again at {}-{}@{} (first at offset {}): not dispatched a "
                            + "second time; without its outcome the gate marks it UNKNOWN and the reconciler asks "
                            + "the provider", reservation.getAttempt(), reservation.getTaskId(),
                            reservation.getToolCallId(), partition.topic(), partition.partition(), record.offset(),
                            first);
                    continue;
                }
                readHere.put(attemptKey, record.offset());
                if (!now.isBefore(reservation.getLeaseExpiresAt())) {
                    metrics.recordLeaseExpired();
                    Tracing.Scope traced = Tracing.continueTrace(TraceHeaders.read(record.headers()),
                            "actiongate.dispatch", SpanKind.CONSUMER);
                    try (traced) {
                        produceAsync(mapper.leaseExpired(reservation, now)); // the outcome keeps the trace too
                    }
                    continue;
                }
                accepted.add(new Pending(partition, reservation, TraceHeaders.read(record.headers())));
            }
        }
        if (offsets.isEmpty()) {
            return 0; // only records a previous owner committed: remembered, nothing to commit or dispatch
        }
        Set<TopicPartition> committed = commit(offsets, firstOffsets);
        // nothing of the others remembered: the rewound records are read again as they were
        read.forEach((partition, keys) -> {
            if (committed.contains(partition)) {
                keys.forEach((key, offset) -> fence.remember(partition, key, offset));
            }
        });
        int submitted = 0;
        for (Pending pending : accepted) {
            if (committed.contains(pending.partition())) {
                submit(pending);
                submitted++;
            }
        }
        return submitted;
    }

    /**
     * The records of {@code batch} this executor has to act on: those below the partition's history end were
     * committed before it held the partition, so they are only remembered by the fence.
     */
    private List<ConsumerRecord<String, byte[]>> live(TopicPartition partition,
                                                     List<ConsumerRecord<String, byte[]>> batch) {
        Long end = historyEnd.get(partition);
        if (end == null) {
            return batch;
        }
        List<ConsumerRecord<String, byte[]>> live = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : batch) {
            if (record.offset() >= end) {
                live.add(record);
                continue;
            }
            AttemptReservation reservation = decodeQuietly(record);
            if (reservation != null) {
                fence.remember(partition, DuplicateFence.attemptKey(reservation), record.offset());
            }
        }
        if (!live.isEmpty()) {
            historyEnd.remove(partition);
        }
        return live;
    }

    /**
     * Stops the executor, before it commits, dispatches or answers anything of the batch, on a reservation of a
     * version it does not read: only the gate writes {@code attempts}, so it is a newer gate's, and skipping it
     * would lose its dispatch (docs/contract.md section 3). The poll thread ends with the exception; nothing of the
     * batch was committed, so the release that reads it dispatches it.
     */
    private void refuseNewerVersions(ConsumerRecords<String, byte[]> records) {
        if (!(reservations instanceof AvroSerde<?> serde)) {
            return;
        }
        for (ConsumerRecord<String, byte[]> record : records) {
            if (record.value() == null) {
                continue;
            }
            try {
                reservations.deserialize(record.topic(), record.value());
            } catch (AvroDecodeException e) {
                UnknownFormatException newer = serde.newerVersion(record);
                if (newer != null) {
                    throw newer;
                }
            }
        }
    }

    private AttemptReservation decodeQuietly(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            return reservations.deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            return null; // counted when it was live
        }
    }

    private AttemptReservation decode(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            return reservations.deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            metrics.recordUndecodable();
            LOG.warn("skipping undecodable reservation at {}-{}@{} ({})", record.topic(), record.partition(),
                    record.offset(), e.getClass().getSimpleName());
            return null;
        }
    }

    /**
     * The fence: the partitions whose offsets are committed, so that their records of the batch are this executor's
     * to dispatch; the others, when still held, are rewound. A commit that throws may still have reached the broker
     * (a {@code wakeup()} from a graceful stop, a timeout or a lost connection end the wait, not the request): then
     * the group skips those records, and without a dispatch here nobody would send them. So after a failure the
     * broker's committed offsets decide, by the token this commit alone carries.
     */
    private Set<TopicPartition> commit(Map<TopicPartition, OffsetAndMetadata> offsets,
                                       Map<TopicPartition, Long> firstOffsets) {
        try {
            consumer.commitSync(offsets);
            return offsets.keySet();
        } catch (KafkaException e) {
            metrics.recordCommitFailure();
            Set<TopicPartition> landed = landed(offsets);
            Map<TopicPartition, Long> rewound = new HashMap<>(firstOffsets);
            rewound.keySet().removeAll(landed);
            if (landed.isEmpty()) {
                LOG.warn("offset commit failed ({}); dispatching nothing from this batch of {} partition(s)",
                        e.getClass().getSimpleName(), offsets.size());
            } else {
                LOG.warn("offset commit threw {} but reached the broker for {} of {} partition(s): dispatching "
                        + "the records of those", e.getClass().getSimpleName(), landed.size(), offsets.size());
            }
            rewind(rewound);
            if (e instanceof InterruptException) {
                Thread.currentThread().interrupt();
            }
            return landed;
        }
    }

    /**
     * The partitions whose committed offset on the broker is the one {@code offsets} tried to commit, with its token:
     * nobody else commits that token, so the commit landed and no later owner read past it. Empty when that cannot be
     * read (interrupted, or the broker does not answer): then nothing is dispatched, as before.
     */
    private Set<TopicPartition> landed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (Thread.currentThread().isInterrupted()) {
            return Set.of();
        }
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(offsets.keySet(), COMMIT_READBACK);
            Set<TopicPartition> landed = new HashSet<>();
            offsets.forEach((partition, tried) -> {
                OffsetAndMetadata there = committed.get(partition);
                if (there != null && there.offset() == tried.offset() && tried.metadata().equals(there.metadata())) {
                    landed.add(partition);
                }
            });
            return landed;
        } catch (KafkaException e) {
            LOG.warn("could not read back the committed offsets after a failed commit ({}); dispatching nothing "
                    + "from the batch: if the commit landed, the gate's lease turns it UNKNOWN and the reconciler "
                    + "finds no effect", e.getClass().getSimpleName());
            if (e instanceof InterruptException) {
                Thread.currentThread().interrupt();
            }
            return Set.of();
        }
    }

    /** Metadata of one commit's offsets that no other commit carries: which commit landed is read back by it. */
    private String commitToken() {
        return instance + "/" + (++commits);
    }

    /** If the group hands a partition back to us, read the undispatched batch again rather than skip it. */
    private void rewind(Map<TopicPartition, Long> firstOffsets) {
        try {
            Set<TopicPartition> assigned = consumer.assignment();
            firstOffsets.forEach((partition, offset) -> {
                if (assigned.contains(partition)) {
                    consumer.seek(partition, offset);
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("could not rewind after a failed commit", e);
        }
    }

    private void submit(Pending pending) {
        inFlight.incrementAndGet();
        Set<CompletableFuture<Void>> partitionFutures =
                inFlightByPartition.computeIfAbsent(pending.partition(), p -> ConcurrentHashMap.newKeySet());
        // completes once the outcome is acknowledged (or could not be produced): revocation and shutdown wait for it
        CompletableFuture<Void> reported = new CompletableFuture<>();
        partitionFutures.add(reported);
        reported.whenComplete((ignored, error) -> partitionFutures.remove(reported));
        try {
            pool.execute(() -> {
                AttemptReservation reservation = pending.reservation();
                // the log lines carry the action key; the proposal's trace continues to the provider and outcome
                ActionLogContext.Scope logged = ActionLogContext.enter(reservation.getTaskId(),
                        reservation.getToolCallId());
                Tracing.Scope traced = Tracing.continueTrace(pending.trace(), "actiongate.dispatch",
                        SpanKind.CONSUMER);
                try (logged; traced) {
                    AttemptOutcome outcome;
                    try {
                        outcome = dispatch(reservation);
                    } finally {
                        // the thread is free as soon as the provider answered: it does not wait for the outcome's
                        // acknowledgement, and the slot counts free before anyone waiting on the future looks
                        release();
                    }
                    send(outcome, reported);
                } catch (RuntimeException | Error e) {
                    LOG.error("dispatch task failed ({}); the gate will mark the attempt UNKNOWN",
                            e.getClass().getSimpleName());
                    reported.completeExceptionally(e);
                }
            });
        } catch (RuntimeException rejected) {
            // The pool is shut down (closing): the reservation is committed but will not be sent. The gate's
            // lease timeout turns it into UNKNOWN and the reconciler finds no effect.
            release();
            reported.complete(null);
            LOG.warn("dispatch pool rejected a committed reservation ({}); no dispatch",
                    rejected.getClass().getSimpleName());
        }
    }

    /** Runs on a pool thread: the outcome of one reservation (the connector is called at most once). */
    private AttemptOutcome dispatch(AttemptReservation reservation) {
        Instant startedAt = clock.instant();
        if (!startedAt.isBefore(reservation.getLeaseExpiresAt())) {
            // queued behind other dispatches until the lease passed: the gate may already count it as lost
            metrics.recordLeaseExpired();
            return mapper.leaseExpired(reservation, startedAt);
        }
        Optional<Connector> connector = connectors.find(reservation.getProvider());
        if (connector.isEmpty()) {
            LOG.warn("no connector for provider {}; attempt {} of {}/{} not dispatched", reservation.getProvider(),
                    reservation.getAttempt(), reservation.getTaskId(), reservation.getToolCallId());
            return mapper.unknownProvider(reservation, startedAt);
        }
        PreDispatchCheck.Result checked = preDispatch.check(checkRequest(reservation));
        if (checked instanceof PreDispatchCheck.Refuse refuse) {
            LOG.warn("attempt {} of {}/{} not dispatched: {}", reservation.getAttempt(), reservation.getTaskId(),
                    reservation.getToolCallId(), refuse.errorCode());
            return mapper.refusedBeforeDispatch(reservation, refuse.errorCode(), refuse.detail(), startedAt);
        }
        AttemptOutcome outcome;
        try {
            DispatchRequest request = toRequest(reservation, ((PreDispatchCheck.Proceed) checked).attachments());
            DispatchResult result = connector.get().dispatch(request);
            outcome = mapper.fromResult(reservation, result, startedAt, clock.instant());
        } catch (RuntimeException e) {
            LOG.warn("connector {} threw {} dispatching attempt {} of {}/{}; outcome UNKNOWN",
                    reservation.getProvider(), e.getClass().getSimpleName(), reservation.getAttempt(),
                    reservation.getTaskId(), reservation.getToolCallId());
            outcome = mapper.fromException(reservation, e, startedAt, clock.instant());
        }
        metrics.recordDispatch(reservation.getProvider(), outcome.getStatus().name(),
                Duration.between(startedAt, outcome.getFinishedAt()));
        return outcome;
    }

    static DispatchRequest toRequest(AttemptReservation r) {
        return toRequest(r, List.of());
    }

    /** The connector's request; attachments carry the bytes the pre-dispatch check read and verified. */
    static DispatchRequest toRequest(AttemptReservation r, List<Verification.LoadedAttachment> loaded) {
        Map<String, byte[]> bytes = new HashMap<>();
        loaded.forEach(l -> bytes.put(l.ref().objectKey(), l.bytes()));
        List<Attachment> attachments = r.getAttachments().stream()
                .map(a -> new Attachment(a.getObjectKey(), a.getSha256(), a.getSizeBytes(), a.getContentType(),
                        bytes.get(a.getObjectKey())))
                .toList();
        return new DispatchRequest(r.getTaskId(), r.getToolCallId(), r.getAttempt(), r.getIdempotencyKey(),
                r.getOrgId(), r.getProvider(), r.getOperation(), r.getToolName(), r.getInputJson(), attachments,
                r.getLeaseExpiresAt(), r.getActionDigest(), r.getDecisionId(), r.getApprovedBy(), r.getSummary());
    }

    private static PreDispatchCheck.Request checkRequest(AttemptReservation r) {
        return new PreDispatchCheck.Request(r.getTaskId(), r.getToolCallId(), r.getProvider(), r.getToolName(),
                r.getToolSchemaHash(), r.getAttachments().stream().map(AttachmentRef::fromAvro).toList());
    }

    private ProducerRecord<String, AttemptOutcome> record(AttemptOutcome outcome) {
        ProducerRecord<String, AttemptOutcome> record = new ProducerRecord<>(outcomesTopic,
                ActionKey.format(outcome.getTaskId(), outcome.getToolCallId()), outcome);
        TraceHeaders.write(record.headers(), Tracing.currentHeaders());
        return record;
    }

    private void produceAsync(AttemptOutcome outcome) {
        String status = outcome.getStatus().name();
        producer.send(record(outcome), (metadata, error) -> {
            if (error == null) {
                metrics.recordOutcome(status);
            } else {
                LOG.error("could not produce {} outcome for attempt {} of {}/{} ({})", status, outcome.getAttempt(),
                        outcome.getTaskId(), outcome.getToolCallId(), error.getClass().getSimpleName());
            }
        });
    }

    /**
     * Hands the outcome to the producer without waiting: {@code reported} completes in the acknowledgement's
     * callback, so revocation and shutdown still wait for outcomes, not just sends, while the dispatch thread
     * already takes the next reservation.
     */
    private void send(AttemptOutcome outcome, CompletableFuture<Void> reported) {
        String status = outcome.getStatus().name();
        try {
            producer.send(record(outcome), (metadata, error) -> {
                if (error == null) {
                    metrics.recordOutcome(status);
                } else {
                    LOG.error("could not produce {} outcome for attempt {} of {}/{} ({}); the gate will mark it "
                            + "UNKNOWN", status, outcome.getAttempt(), outcome.getTaskId(), outcome.getToolCallId(),
                            error.getClass().getSimpleName());
                }
                reported.complete(null);
            });
        } catch (KafkaException e) {
            LOG.error("could not produce {} outcome for attempt {} of {}/{} ({}); the gate will mark it UNKNOWN",
                    status, outcome.getAttempt(), outcome.getTaskId(), outcome.getToolCallId(),
                    e.getClass().getSimpleName());
            if (e instanceof InterruptException) {
                Thread.currentThread().interrupt();
            }
            reported.complete(null);
        }
    }

    /**
     * Whether there is room for another batch: fewer than twice the pool's threads in flight (every thread busy and
     * as many committed reservations waiting for one). While full, the poll thread fetches nothing and waits for a
     * dispatch to finish, at most {@link #FULL_WAIT}; the queued half keeps the threads busy while it then fetches and
     * commits the next batch. Heartbeats run on the consumer's own thread, and a wait is far below
     * {@code max.poll.interval.ms}.
     */
    private boolean awaitRoom() {
        if (inFlight.get() < 2 * capacity) {
            return true;
        }
        metrics.recordPause();
        LOG.debug("dispatch pool full ({} in flight); waiting for a free thread", inFlight.get());
        long deadline = System.nanoTime() + FULL_WAIT.toNanos();
        synchronized (room) {
            while (inFlight.get() >= 2 * capacity) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    room.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    /** A dispatch slot is free again: wake the poll thread if it waits for one. */
    private void release() {
        if (inFlight.decrementAndGet() == 2 * capacity - 1) {
            synchronized (room) {
                room.notifyAll();
            }
        }
    }

    int inFlight() {
        return inFlight.get();
    }

    /** Waits, bounded, for the dispatches of {@code partitions} to produce their outcomes. */
    boolean awaitInFlight(Collection<TopicPartition> partitions, Duration timeout) {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            Set<CompletableFuture<Void>> set = inFlightByPartition.get(partition);
            if (set != null) {
                futures.addAll(set);
            }
        }
        if (futures.isEmpty()) {
            return true;
        }
        try {
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            LOG.warn("{} dispatch(es) still in flight after {} ms; they will still report their outcomes",
                    futures.stream().filter(f -> !f.isDone()).count(), timeout.toMillis());
            return false;
        }
    }

    boolean awaitAll(Duration timeout) {
        return awaitInFlight(Set.copyOf(inFlightByPartition.keySet()), timeout);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        awaitInFlight(partitions, revocationTimeout);
        forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        // Offsets of everything in flight are committed already; waiting keeps outcomes ahead of the new owner's.
        awaitInFlight(partitions, revocationTimeout);
        forget(partitions);
    }

    private void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(p -> {
            fence.forget(p);
            historyEnd.remove(p);
        });
    }

    /**
     * Reads the last {@code fence records} reservations before each new partition's committed offset again, into
     * the duplicate fence only; without them a second reservation of an attempt whose first one a previous owner
     * dispatched would pass. If that cannot be read now, the fence covers what is read from here on.
     */
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (fence.records() == 0 || partitions.isEmpty()) {
            return;
        }
        try {
            Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(partitions);
            for (TopicPartition partition : partitions) {
                long position = consumer.position(partition);
                long from = Math.max(beginnings.getOrDefault(partition, 0L), position - fence.records());
                if (from < position) {
                    historyEnd.put(partition, position);
                    consumer.seek(partition, from);
                }
            }
        } catch (KafkaException e) {
            LOG.warn("could not read the recent reservations of {} for the duplicate fence ({}); it covers what is "
                    + "read from now on", partitions, e.getClass().getSimpleName());
        }
    }

    private record Pending(TopicPartition partition, AttemptReservation reservation, Map<String, String> trace) {
    }
}
