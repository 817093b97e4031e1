package io.actiongate.baseline.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import javax.sql.DataSource;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.digest.Digests;
import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.Topics;

/**
 * The hand-built answer actiongate is compared with, as a competent engineer would write it: a Kafka
 * consumer of proposals and a claims table in PostgreSQL keyed on {@code (task_id, tool_call_id)}.
 * <ol>
 *   <li>claim, per poll: one {@code INSERT ... SELECT FROM unnest(...) ON CONFLICT (task_id, tool_call_id) DO
 *       NOTHING RETURNING} for every proposal of the poll with its input digest and tool: one commit per poll;</li>
 *   <li>claimed: dispatched on one of {@code threads} workers (no connection held) through the webhook connector
 *       (same connector, Idempotency-Key and provider as the executor);</li>
 *   <li>results, per batch: a settler thread writes every result that arrived meanwhile with one
 *       {@code UPDATE ... FROM unnest(...)} (one commit per batch), then produces their {@link Receipt}s;</li>
 *   <li>not claimed, same digest and tool: a redelivery; a receipt of the stored state, no dispatch;</li>
 *   <li>not claimed, another digest or tool: refused, an {@link IdentityConflict} to the conflicts topic.</li>
 * </ol>
 * Durability is chosen per run: {@code synchronousCommit} false sets {@code synchronous_commit = off} on every
 * connection (a commit does not wait for its WAL flush). The consumer commits offsets (at least once), every
 * {@code commitInterval}, only below the lowest record whose output is not yet acknowledged. No policy, no approval, no credential scan, no retries or
 * reconciliation of an unknown outcome, and no transaction spanning Kafka and PostgreSQL: a crash between claim and
 * result leaves the claim at DISPATCHING.
 */
public final class PgClaimService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PgClaimService.class);

    public static final String DDL = """
            CREATE TABLE claims (
              task_id             text        NOT NULL,
              tool_call_id        text        NOT NULL,
              input_digest        text        NOT NULL,
              tool                text        NOT NULL,
              idempotency_key     text        NOT NULL,
              status              text        NOT NULL,
              provider_receipt_id text,
              http_status         integer,
              error_code          text,
              claimed_at          timestamptz NOT NULL DEFAULT now(),
              finished_at         timestamptz,
              PRIMARY KEY (task_id, tool_call_id)
            )""";
    public static final String CLAIM =
            "INSERT INTO claims (task_id, tool_call_id, input_digest, tool, idempotency_key, "
            + "status) SELECT t, c, d, o, k, 'DISPATCHING' FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], "
            + "?::text[]) AS v(t, c, d, o, k) ON CONFLICT (task_id, tool_call_id) DO NOTHING "
            + "RETURNING task_id, tool_call_id";
    public static final String EXISTING = "SELECT input_digest, tool, status, provider_receipt_id FROM claims "
            + "WHERE task_id = ? AND tool_call_id = ?";
    public static final String SETTLE = "UPDATE claims SET status = v.s, provider_receipt_id = v.r, http_status = v.h, "
            + "error_code = v.e, finished_at = now() FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], "
            + "?::int4[], ?::text[]) AS v(t, c, s, r, h, e) WHERE claims.task_id = v.t AND claims.tool_call_id = v.c";
    /** Results the settler writes with one statement at most. */
    public static final int SETTLE_BATCH = 1000;
    /** The client id the service asks its producer factory for; its network thread is named after it. */
    public static final String PRODUCER_CLIENT_ID = "pg-claim-producer";

    /** What the service did, counted as it did it. */
    public record Counters(long claimed, long redeliveries, long conflicts, long failures) {
    }

    private final String inTopic;
    private final String receiptsTopic;
    private final String conflictsTopic;
    private final DataSource db;
    private final Connector connector;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Producer<String, byte[]> producer;
    private final ExecutorService workers;
    private final Semaphore slots;
    private final int threads;
    /** The consumer thread's connection (claims, lookups) and the settler's (results). */
    private final ClaimStore claimStore;
    private final ClaimStore settleStore;
    private final java.util.concurrent.LinkedBlockingQueue<Settled> results =
            new java.util.concurrent.LinkedBlockingQueue<>();
    private final Thread settler;
    private final Map<TopicPartition, Offsets> offsets = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong redeliveries = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final Thread thread;
    private final long commitIntervalMs;
    private volatile boolean running = true;
    private long lastCommit;

    private PgClaimService(String bootstrap, String prefix, String groupId, DataSource db, Connector connector,
                           int threads, int maxPollRecords, boolean synchronousCommit, Duration commitInterval,
                           Function<String, ? extends Producer<String, byte[]>> producers) {
        this.inTopic = Topics.PROPOSALS.name(prefix);
        this.receiptsTopic = Topics.RECEIPTS.name(prefix);
        this.conflictsTopic = Topics.CONFLICTS.name(prefix);
        this.db = db;
        this.connector = connector;
        this.threads = threads;
        this.commitIntervalMs = commitInterval.toMillis();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        this.producer = producers.apply(PRODUCER_CLIENT_ID);
        this.slots = new Semaphore(threads);
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "pg-claim-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.claimStore = openStore(synchronousCommit);
        this.settleStore = openStore(synchronousCommit);
        this.thread = new Thread(this::loop, "pg-claim-consumer");
        this.thread.setDaemon(true);
        this.settler = new Thread(this::settleLoop, "pg-claim-settler");
        this.settler.setDaemon(true);
    }

    /** Creates the claims table in {@code db}. */
    public static void createSchema(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(DDL);
        }
    }

    /**
     * Starts consuming {@code <prefix>proposals} as group {@code groupId}, with {@code threads} workers and
     * connections, writing to {@code <prefix>receipts} and {@code <prefix>conflicts}.
     *
     * @param synchronousCommit false: {@code synchronous_commit = off} on every connection
     * @param commitInterval    how often the consumer commits its offsets
     * @param producers         the producer of the receipts and conflicts, by client id ({@link #PRODUCER_CLIENT_ID})
     */
    public static PgClaimService start(String bootstrap, String prefix, String groupId, DataSource db,
                                       Connector connector, int threads, int maxPollRecords,
                                       boolean synchronousCommit, Duration commitInterval,
                                       Function<String, ? extends Producer<String, byte[]>> producers) {
        PgClaimService s = new PgClaimService(bootstrap, prefix, groupId, db, connector, threads, maxPollRecords,
                synchronousCommit, commitInterval, producers);
        s.settler.start();
        s.thread.start();
        return s;
    }

    public Counters counters() {
        return new Counters(claimed.get(), redeliveries.get(), conflicts.get(), failures.get());
    }

    private void loop() {
        try {
            consumer.subscribe(List.of(inTopic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    drainAndCommit(partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    // positions come from the group's committed offsets
                }
            });
            while (running) {
                List<Pending> batch = new ArrayList<>();
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(10))) {
                    Offsets o = offsets.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
                            tp -> new Offsets());
                    o.submitted(r.offset());
                    Pending pending = parse(r, o);
                    if (pending != null) {
                        batch.add(pending);
                    }
                }
                if (!batch.isEmpty() && !claimAndDispatch(batch)) {
                    return;
                }
                if (System.currentTimeMillis() - lastCommit >= commitIntervalMs) {
                    commit(false, offsets.keySet());
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("the claim service's consumer stopped: {}", e.toString());
            failures.incrementAndGet();
        } finally {
            drainAndCommit(List.copyOf(offsets.keySet()));
            consumer.close();
        }
    }

    /** Waits (bounded) until every record of {@code partitions} taken so far is done, then commits them. */
    private void drainAndCommit(Collection<TopicPartition> partitions) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (TopicPartition tp : partitions) {
            Offsets o = offsets.get(tp);
            while (o != null && !o.idle() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        producer.flush();
        commit(true, partitions);
    }

    private void commit(boolean sync, Collection<TopicPartition> partitions) {
        lastCommit = System.currentTimeMillis();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (TopicPartition tp : partitions) {
            Offsets o = offsets.get(tp);
            long position = o == null ? -1 : o.commitPosition();
            if (position >= 0 && position > committed.getOrDefault(tp, -1L)) {
                commit.put(tp, new OffsetAndMetadata(position));
            }
        }
        if (commit.isEmpty()) {
            return;
        }
        try {
            if (sync) {
                try {
                    consumer.commitSync(commit);
                } catch (WakeupException e) {
                    consumer.commitSync(commit); // the wake-up of close() arrived outside poll(): once more
                }
            } else {
                consumer.commitAsync(commit, (done, e) -> {
                    if (e != null) {
                        LOG.warn("offset commit failed: {}", e.toString());
                    }
                });
            }
            commit.forEach((tp, offset) -> committed.put(tp, offset.offset()));
        } catch (RuntimeException e) {
            LOG.warn("offset commit failed: {}", e.toString());
        }
    }

    /** A proposal of a poll, decoded, with its digest and the key of its effect. */
    private record Pending(ConsumerRecord<String, byte[]> record, Offsets offsets, ActionProposal proposal,
                           String key, String digest, String tool, String idempotencyKey) {
    }

    /** A dispatched proposal and its result, for the settler. */
    private record Settled(Pending pending, ReceiptStatus status, DispatchResult result) {
    }

    private Pending parse(ConsumerRecord<String, byte[]> r, Offsets o) {
        try {
            ActionProposal p = Topics.PROPOSALS.valueSerde().deserializer().deserialize(r.topic(), r.value());
            String key = ActionKey.format(p.getTaskId(), p.getToolCallId());
            String idempotencyKey = p.getIdempotencyKey() != null ? p.getIdempotencyKey()
                    : IdempotencyKeys.derived(key);
            return new Pending(r, o, p, key, Digests.inputDigest(p.getInputJson()),
                    p.getProvider() + ":" + p.getToolName() + ":" + p.getOperation(), idempotencyKey);
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("proposal at {}-{}@{} failed: {}", r.topic(), r.partition(), r.offset(), e.toString());
            o.done(r.offset());
            return null;
        }
    }

    /**
     * Claims every proposal of a poll with one statement (one commit), hands the claimed ones to the workers (at
     * most {@code threads} in flight) and answers the others from their claim; false when stopped meanwhile.
     */
    private boolean claimAndDispatch(List<Pending> batch) throws InterruptedException {
        java.util.Set<String> won;
        try {
            won = claimStore.claim(batch);
        } catch (SQLException | RuntimeException e) {
            failures.addAndGet(batch.size());
            LOG.warn("claiming {} proposals failed: {}", batch.size(), e.toString());
            batch.forEach(p -> p.offsets().done(p.record().offset()));
            return true;
        }
        claimed.addAndGet(won.size());
        for (Pending p : batch) {
            if (won.contains(p.key())) {
                while (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    if (!running) {
                        return false;
                    }
                }
                workers.execute(() -> dispatch(p));
            } else {
                answerExisting(p);
            }
        }
        return true;
    }

    private void dispatch(Pending pending) {
        ActionProposal p = pending.proposal();
        try {
            DispatchResult result = connector.dispatch(new DispatchRequest(p.getTaskId(), p.getToolCallId(), 1,
                    pending.idempotencyKey(), p.getOrgId(), p.getProvider(), p.getOperation(), p.getToolName(),
                    p.getInputJson(), List.of(), null));
            results.add(new Settled(pending, status(result), result));
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("dispatch of {} failed: {}", pending.key(), e.toString());
            pending.offsets().done(pending.record().offset());
        } finally {
            slots.release();
        }
    }

    /** The settler: every result that arrived meanwhile in one statement (one commit), then their receipts. */
    private void settleLoop() {
        List<Settled> batch = new ArrayList<>();
        while (running || !results.isEmpty() || !workersIdle()) {
            try {
                Settled first = results.poll(5, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                results.drainTo(batch, SETTLE_BATCH - 1);
                settleStore.settle(batch);
                for (Settled s : batch) {
                    Pending p = s.pending();
                    send(p, receipt(p.key(), p.proposal(), p.digest(), s.status(), s.result().providerReceiptId(),
                            s.result().errorCode()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (SQLException | RuntimeException e) {
                failures.addAndGet(batch.size());
                LOG.warn("settling {} results failed: {}", batch.size(), e.toString());
                batch.forEach(s -> s.pending().offsets().done(s.pending().record().offset()));
            }
            batch.clear();
        }
    }

    private boolean workersIdle() {
        return slots.availablePermits() == threads;
    }

    private void answerExisting(Pending pending) {
        ActionProposal p = pending.proposal();
        try {
            ClaimStore.Existing existing = claimStore.existing(p);
            ProducerRecord<String, byte[]> out;
            if (existing.digest().equals(pending.digest()) && existing.tool().equals(pending.tool())) {
                redeliveries.incrementAndGet();
                out = receipt(pending.key(), p, pending.digest(), ReceiptStatus.valueOf(existing.status()),
                        existing.providerReceiptId(), null);
            } else {
                conflicts.incrementAndGet();
                out = new ProducerRecord<>(conflictsTopic, pending.key(), Topics.CONFLICTS.valueSerde().serializer()
                        .serialize(conflictsTopic, IdentityConflict.newBuilder().setTaskId(p.getTaskId())
                                .setToolCallId(p.getToolCallId()).setExistingDigest(existing.digest())
                                .setOfferedDigest(pending.digest()).setExistingTool(existing.tool())
                                .setOfferedTool(pending.tool()).setDetectedAt(Instant.now()).build()));
            }
            send(pending, out);
        } catch (SQLException | RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("answering {} from its claim failed: {}", pending.key(), e.toString());
            pending.offsets().done(pending.record().offset());
        }
    }

    private void send(Pending pending, ProducerRecord<String, byte[]> out) {
        producer.send(out, (metadata, e) -> {
            if (e != null) {
                failures.incrementAndGet();
                LOG.warn("cannot write the output of {}: {}", pending.key(), e.toString());
            }
            pending.offsets().done(pending.record().offset());
        });
    }

    private static ReceiptStatus status(DispatchResult result) {
        return switch (result.status()) {
            case SUCCEEDED -> ReceiptStatus.SUCCEEDED;
            case FAILED -> ReceiptStatus.FAILED;
            case UNKNOWN -> ReceiptStatus.UNKNOWN;
            case RETRYABLE, NOT_DISPATCHED -> ReceiptStatus.NOT_APPLIED;
        };
    }

    private ProducerRecord<String, byte[]> receipt(String key, ActionProposal p, String digest, ReceiptStatus status,
                                                   String providerReceiptId, String errorCode) {
        Receipt receipt = Receipt.newBuilder().setTaskId(p.getTaskId()).setToolCallId(p.getToolCallId())
                .setStatus(status).setReasonCode(null).setReason(errorCode).setOrgId(p.getOrgId())
                .setToolName(p.getToolName()).setProvider(p.getProvider()).setOperation(p.getOperation())
                .setInputDigest(digest).setActionDigest(null).setDecisionId(null).setAttempts(List.of())
                .setProviderReceiptId(providerReceiptId).setResolvedBy(null).setUpdatedAt(Instant.now()).build();
        return new ProducerRecord<>(receiptsTopic, key,
                Topics.RECEIPTS.valueSerde().serializer().serialize(receiptsTopic, receipt));
    }

    private ClaimStore openStore(boolean synchronousCommit) {
        try {
            return new ClaimStore(db.getConnection(), synchronousCommit);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to PostgreSQL: " + e.getMessage(), e);
        }
    }

    /** Stops consuming, finishes the records taken, commits their offsets and closes every connection. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
        try {
            settler.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(10));
        claimStore.close();
        settleStore.close();
    }

    /** The workers this service runs (and connections it holds). */
    public int threads() {
        return threads;
    }

    /** Offsets of one partition taken but whose output is not yet acknowledged. */
    public static final class Offsets {
        private final ConcurrentSkipListSet<Long> pending = new ConcurrentSkipListSet<>();
        private volatile long next = -1;

        /** Called by the consumer thread only, in offset order. */
        public void submitted(long offset) {
            pending.add(offset);
            next = offset + 1;
        }

        public void done(long offset) {
            pending.remove(offset);
        }

        public boolean idle() {
            return pending.isEmpty();
        }

        /** The offset to commit: the lowest one not done, or past the last taken when all are done. */
        public long commitPosition() {
            long taken = next;
            Long lowest = pending.ceiling(Long.MIN_VALUE);
            return lowest == null ? taken : lowest;
        }
    }

    /** One worker's connection and prepared statements. */
    private static final class ClaimStore implements AutoCloseable {

        public record Existing(String digest, String tool, String status, String providerReceiptId) {
        }

        private final Connection connection;
        private final PreparedStatement claim;
        private final PreparedStatement existing;
        private final PreparedStatement settle;

        public ClaimStore(Connection connection, boolean synchronousCommit) throws SQLException {
            this.connection = connection;
            connection.setAutoCommit(true);
            if (!synchronousCommit) {
                try (Statement st = connection.createStatement()) {
                    st.execute("SET synchronous_commit = off");
                }
            }
            this.claim = connection.prepareStatement(CLAIM);
            this.existing = connection.prepareStatement(EXISTING);
            this.settle = connection.prepareStatement(SETTLE);
        }

        /** Claims every proposal of {@code batch} in one statement (autocommit); the action keys this call won. */
        public java.util.Set<String> claim(List<Pending> batch) throws SQLException {
            int n = batch.size();
            String[] tasks = new String[n];
            String[] calls = new String[n];
            String[] digests = new String[n];
            String[] tools = new String[n];
            String[] keys = new String[n];
            for (int i = 0; i < n; i++) {
                Pending p = batch.get(i);
                tasks[i] = p.proposal().getTaskId();
                calls[i] = p.proposal().getToolCallId();
                digests[i] = p.digest();
                tools[i] = p.tool();
                keys[i] = p.idempotencyKey();
            }
            claim.setArray(1, connection.createArrayOf("text", tasks));
            claim.setArray(2, connection.createArrayOf("text", calls));
            claim.setArray(3, connection.createArrayOf("text", digests));
            claim.setArray(4, connection.createArrayOf("text", tools));
            claim.setArray(5, connection.createArrayOf("text", keys));
            java.util.Set<String> won = new java.util.HashSet<>();
            try (ResultSet rs = claim.executeQuery()) {
                while (rs.next()) {
                    won.add(ActionKey.format(rs.getString(1), rs.getString(2)));
                }
            }
            return won;
        }

        public Existing existing(ActionProposal p) throws SQLException {
            existing.setString(1, p.getTaskId());
            existing.setString(2, p.getToolCallId());
            try (ResultSet rs = existing.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("a claim that conflicted is gone");
                }
                return new Existing(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4));
            }
        }

        /** Writes every result of {@code batch} in one statement (autocommit). */
        public void settle(List<Settled> batch) throws SQLException {
            int n = batch.size();
            String[] tasks = new String[n];
            String[] calls = new String[n];
            String[] statuses = new String[n];
            String[] receipts = new String[n];
            Integer[] http = new Integer[n];
            String[] errors = new String[n];
            for (int i = 0; i < n; i++) {
                Settled s = batch.get(i);
                tasks[i] = s.pending().proposal().getTaskId();
                calls[i] = s.pending().proposal().getToolCallId();
                statuses[i] = s.status().name();
                receipts[i] = s.result().providerReceiptId();
                http[i] = s.result().httpStatus();
                errors[i] = s.result().errorCode();
            }
            settle.setArray(1, connection.createArrayOf("text", tasks));
            settle.setArray(2, connection.createArrayOf("text", calls));
            settle.setArray(3, connection.createArrayOf("text", statuses));
            settle.setArray(4, connection.createArrayOf("text", receipts));
            settle.setArray(5, connection.createArrayOf("int4", http));
            settle.setArray(6, connection.createArrayOf("text", errors));
            int updated = settle.executeUpdate();
            if (updated != n) {
                throw new IllegalStateException(updated + " claims settled for " + n + " results");
            }
        }

        @Override
        public void close() {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("closing a claim connection: {}", e.toString());
            }
        }
    }
}
