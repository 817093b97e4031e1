package io.actiongate.loadtest;

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

import javax.sql.DataSource;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
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
 * The hand-built answer actiongate is compared with: a Kafka consumer of proposals and a claims table in
 * PostgreSQL keyed on {@code (task_id, tool_call_id)}. Per proposal, on one of {@code threads} workers (one JDBC
 * connection each, autocommit, so two durable transactions per action):
 * <ol>
 *   <li>claim: {@code INSERT ... ON CONFLICT (task_id, tool_call_id) DO NOTHING} with the input digest and tool;</li>
 *   <li>claimed: dispatch through the webhook connector (same connector, Idempotency-Key and provider as the
 *       executor), then {@code UPDATE} the row with the result, then produce a {@link Receipt};</li>
 *   <li>not claimed, same digest and tool: a redelivery; produce a receipt of the stored state, no dispatch;</li>
 *   <li>not claimed, another digest or tool: refused, an {@link IdentityConflict} to the conflicts topic.</li>
 * </ol>
 * The consumer commits offsets (at least once) only below the lowest record whose output is not yet acknowledged.
 * No policy, no approval, no credential scan, no retries or reconciliation of an unknown outcome, and no
 * transaction spanning Kafka and PostgreSQL: a crash between claim and result leaves the claim at DISPATCHING.
 */
final class PgClaimService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PgClaimService.class);

    static final String DDL = """
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
    static final String CLAIM = "INSERT INTO claims (task_id, tool_call_id, input_digest, tool, idempotency_key, "
            + "status) VALUES (?, ?, ?, ?, ?, 'DISPATCHING') ON CONFLICT (task_id, tool_call_id) DO NOTHING";
    static final String EXISTING = "SELECT input_digest, tool, status, provider_receipt_id FROM claims "
            + "WHERE task_id = ? AND tool_call_id = ?";
    static final String SETTLE = "UPDATE claims SET status = ?, provider_receipt_id = ?, http_status = ?, "
            + "error_code = ?, finished_at = now() WHERE task_id = ? AND tool_call_id = ?";
    private static final long COMMIT_INTERVAL_MS = Long.parseLong(BrokerBench.COMMIT_INTERVAL_MS);

    /** What the service did, counted as it did it. */
    record Counters(long claimed, long redeliveries, long conflicts, long failures) {
    }

    private final String inTopic;
    private final String receiptsTopic;
    private final String conflictsTopic;
    private final DataSource db;
    private final Connector connector;
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> producer;
    private final ExecutorService workers;
    private final Semaphore slots;
    private final int threads;
    private final ThreadLocal<ClaimStore> stores;
    private final List<ClaimStore> openStores = new ArrayList<>();
    private final Map<TopicPartition, Offsets> offsets = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong redeliveries = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;
    private long lastCommit;

    private PgClaimService(String bootstrap, String prefix, String groupId, DataSource db, Connector connector,
                           int threads, int maxPollRecords) {
        this.inTopic = Topics.PROPOSALS.name(prefix);
        this.receiptsTopic = Topics.RECEIPTS.name(prefix);
        this.conflictsTopic = Topics.CONFLICTS.name(prefix);
        this.db = db;
        this.connector = connector;
        this.threads = threads;
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        this.producer = BrokerBench.producer(bootstrap);
        this.slots = new Semaphore(threads);
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "pg-claim-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.stores = ThreadLocal.withInitial(this::openStore);
        this.thread = new Thread(this::loop, "pg-claim-consumer");
        this.thread.setDaemon(true);
    }

    /** Creates the claims table in {@code db}. */
    static void createSchema(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(DDL);
        }
    }

    /**
     * Starts consuming {@code <prefix>proposals} as group {@code groupId}, with {@code threads} workers and
     * connections, writing to {@code <prefix>receipts} and {@code <prefix>conflicts}.
     */
    static PgClaimService start(String bootstrap, String prefix, String groupId, DataSource db, Connector connector,
                                int threads, int maxPollRecords) {
        PgClaimService s = new PgClaimService(bootstrap, prefix, groupId, db, connector, threads, maxPollRecords);
        s.thread.start();
        return s;
    }

    Counters counters() {
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
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    while (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        if (!running) {
                            return;
                        }
                    }
                    Offsets o = offsets.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
                            tp -> new Offsets());
                    o.submitted(r.offset());
                    workers.execute(() -> handle(r, o));
                }
                if (System.currentTimeMillis() - lastCommit >= COMMIT_INTERVAL_MS) {
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

    private void handle(ConsumerRecord<String, byte[]> r, Offsets o) {
        boolean slotHeld = true;
        try {
            ActionProposal p = Topics.PROPOSALS.valueSerde().deserializer().deserialize(r.topic(), r.value());
            String key = ActionKey.format(p.getTaskId(), p.getToolCallId());
            String digest = Digests.inputDigest(p.getInputJson());
            String tool = p.getProvider() + ":" + p.getToolName() + ":" + p.getOperation();
            String idempotencyKey = p.getIdempotencyKey() != null ? p.getIdempotencyKey()
                    : IdempotencyKeys.derived(key);
            ClaimStore store = stores.get();
            ProducerRecord<String, byte[]> out;
            if (store.claim(p, digest, tool, idempotencyKey)) {
                claimed.incrementAndGet();
                DispatchResult result = connector.dispatch(new DispatchRequest(p.getTaskId(), p.getToolCallId(), 1,
                        idempotencyKey, p.getOrgId(), p.getProvider(), p.getOperation(), p.getToolName(),
                        p.getInputJson(), List.of(), null));
                ReceiptStatus status = status(result);
                store.settle(p, status, result);
                out = receipt(key, p, digest, status, result.providerReceiptId(), result.errorCode());
            } else {
                ClaimStore.Existing existing = store.existing(p);
                if (existing.digest().equals(digest) && existing.tool().equals(tool)) {
                    redeliveries.incrementAndGet();
                    out = receipt(key, p, digest, ReceiptStatus.valueOf(existing.status()),
                            existing.providerReceiptId(), null);
                } else {
                    conflicts.incrementAndGet();
                    out = new ProducerRecord<>(conflictsTopic, key, Topics.CONFLICTS.valueSerde().serializer()
                            .serialize(conflictsTopic, IdentityConflict.newBuilder().setTaskId(p.getTaskId())
                                    .setToolCallId(p.getToolCallId()).setExistingDigest(existing.digest())
                                    .setOfferedDigest(digest).setExistingTool(existing.tool()).setOfferedTool(tool)
                                    .setDetectedAt(Instant.now()).build()));
                }
            }
            slots.release();
            slotHeld = false;
            producer.send(out, (metadata, e) -> {
                if (e != null) {
                    failures.incrementAndGet();
                    LOG.warn("cannot write the output of {}: {}", key, e.toString());
                }
                o.done(r.offset());
            });
        } catch (SQLException | RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("proposal at {}-{}@{} failed: {}", r.topic(), r.partition(), r.offset(), e.toString());
            o.done(r.offset());
        } finally {
            if (slotHeld) {
                slots.release();
            }
        }
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

    private ClaimStore openStore() {
        try {
            ClaimStore store = new ClaimStore(db.getConnection());
            synchronized (openStores) {
                openStores.add(store);
            }
            return store;
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
        producer.close(Duration.ofSeconds(10));
        synchronized (openStores) {
            openStores.forEach(ClaimStore::close);
            openStores.clear();
        }
    }

    /** The workers this service runs (and connections it holds). */
    int threads() {
        return threads;
    }

    /** Offsets of one partition taken but whose output is not yet acknowledged. */
    static final class Offsets {
        private final ConcurrentSkipListSet<Long> pending = new ConcurrentSkipListSet<>();
        private volatile long next = -1;

        /** Called by the consumer thread only, in offset order. */
        void submitted(long offset) {
            pending.add(offset);
            next = offset + 1;
        }

        void done(long offset) {
            pending.remove(offset);
        }

        boolean idle() {
            return pending.isEmpty();
        }

        /** The offset to commit: the lowest one not done, or past the last taken when all are done. */
        long commitPosition() {
            long taken = next;
            Long lowest = pending.ceiling(Long.MIN_VALUE);
            return lowest == null ? taken : lowest;
        }
    }

    /** One worker's connection and prepared statements. */
    private static final class ClaimStore implements AutoCloseable {

        record Existing(String digest, String tool, String status, String providerReceiptId) {
        }

        private final Connection connection;
        private final PreparedStatement claim;
        private final PreparedStatement existing;
        private final PreparedStatement settle;

        ClaimStore(Connection connection) throws SQLException {
            this.connection = connection;
            connection.setAutoCommit(true);
            this.claim = connection.prepareStatement(CLAIM);
            this.existing = connection.prepareStatement(EXISTING);
            this.settle = connection.prepareStatement(SETTLE);
        }

        /** True when this call inserted the claim (committed: autocommit). */
        boolean claim(ActionProposal p, String digest, String tool, String idempotencyKey) throws SQLException {
            claim.setString(1, p.getTaskId());
            claim.setString(2, p.getToolCallId());
            claim.setString(3, digest);
            claim.setString(4, tool);
            claim.setString(5, idempotencyKey);
            return claim.executeUpdate() == 1;
        }

        Existing existing(ActionProposal p) throws SQLException {
            existing.setString(1, p.getTaskId());
            existing.setString(2, p.getToolCallId());
            try (ResultSet rs = existing.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("a claim that conflicted is gone");
                }
                return new Existing(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4));
            }
        }

        void settle(ActionProposal p, ReceiptStatus status, DispatchResult result) throws SQLException {
            settle.setString(1, status.name());
            settle.setString(2, result.providerReceiptId());
            if (result.httpStatus() == null) {
                settle.setNull(3, java.sql.Types.INTEGER);
            } else {
                settle.setInt(3, result.httpStatus());
            }
            settle.setString(4, result.errorCode());
            settle.setString(5, p.getTaskId());
            settle.setString(6, p.getToolCallId());
            if (settle.executeUpdate() != 1) {
                throw new IllegalStateException("the claim to settle is gone");
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
