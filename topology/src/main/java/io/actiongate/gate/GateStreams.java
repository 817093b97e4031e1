package io.actiongate.gate;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Receipt;
import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.CredentialCheck;
import io.actiongate.gate.internal.GroupCommits;
import io.actiongate.gate.internal.StateRecords;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.serde.UnknownFormatException;

/**
 * Runs the gate topology: exactly-once v2, RocksDB stores under {@code state.dir}. Used by
 * {@code actiongate run --roles=gate} and {@code actiongate dev}.
 */
public final class GateStreams implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GateStreams.class);

    private final Topology topology;
    private final KafkaStreams streams;
    private final GateConfig config;
    private HangingTransactionWatch hanging;
    private volatile String fatal;
    private volatile UnknownFormatException newerFormat;

    private GateStreams(Topology topology, Properties properties, GateConfig config, GroupCommits commits) {
        this.topology = topology;
        this.config = config;
        this.streams = new KafkaStreams(topology, properties, new GateClientSupplier(commits, idlePoll(config)));
        this.streams.setUncaughtExceptionHandler(this::handle);
    }

    private StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse handle(Throwable e) {
        StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse response = uncaught(e);
        if (response == StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT) {
            UnknownFormatException newer = UnknownFormatException.in(e);
            newerFormat = newer;
            fatal = newer != null ? newer.getMessage() : KafkaFailures.describe(e);
        }
        return response;
    }

    /** The record or stored value of a version this release does not read that stopped the gate, if one did. */
    public Optional<UnknownFormatException> newerFormat() {
        return Optional.ofNullable(newerFormat);
    }

    /**
     * Why the gate stopped itself, if it did: a security failure (authentication, TLS, a missing ACL), or a record
     * or stored value of a version this release does not read (its one line).
     */
    public Optional<String> fatalFailure() {
        return Optional.ofNullable(fatal);
    }

    /** The longest a stream thread's poll waits while nothing happens, whatever the timers' intervals. */
    static final Duration MAX_IDLE_POLL = Duration.ofSeconds(5);

    /**
     * How long a stream thread's poll waits while nothing happens ({@link GroupCommitConsumer}): half the shorter of
     * the timers' intervals ({@value GateConfig#PUNCTUATE_INTERVAL_CONFIG}, {@value
     * GateConfig#CANCEL_SWEEP_INTERVAL_CONFIG}), so that a tick comes at most that late, and at most
     * {@link #MAX_IDLE_POLL}, which also bounds how much longer an idle gate takes to close: 500 ms with the
     * defaults. A {@code poll.ms} at least as long leaves it unused.
     */
    static Duration idlePoll(GateConfig config) {
        Duration timers = config.punctuateInterval().compareTo(config.cancelSweepInterval()) < 0
                ? config.punctuateInterval() : config.cancelSweepInterval();
        Duration half = timers.dividedBy(2);
        return half.compareTo(MAX_IDLE_POLL) < 0 ? half : MAX_IDLE_POLL;
    }

    /** How long creating a gate waits to learn the partition count of its input topics. */
    private static final Duration DESCRIBE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * A gate over {@code config} with the default credential scanner, classifying with {@code operations} (see
     * {@link OperationClassifiers}); not started. Like every {@code create}, it reads the partition count of the
     * input topics first ({@link InputPartitions}): they must exist.
     */
    public static GateStreams create(GateConfig config, OperationClassifiers operations) {
        return create(config, operations, ScannerCredentialCheck.defaults(), ReceiptObserver.NONE);
    }

    /** A gate with the default credential scanner whose published receipts {@code receipts} sees; not started. */
    public static GateStreams create(GateConfig config, OperationClassifiers operations, ReceiptObserver receipts) {
        return create(config, operations, ScannerCredentialCheck.defaults(), receipts);
    }

    /**
     * As {@link #create(GateConfig, OperationClassifiers, ReceiptObserver)}, verifying attachments at admission with
     * {@code attachments}.
     */
    public static GateStreams create(GateConfig config, OperationClassifiers operations, ReceiptObserver receipts,
                                     AttachmentCheck attachments) {
        return create(config, operations, ScannerCredentialCheck.defaults(), receipts, attachments);
    }

    /** A gate with another credential check (tests, embedders); not started. */
    public static GateStreams create(GateConfig config, OperationClassifiers operations,
                                     CredentialCheck credentials) {
        return create(config, operations, credentials, ReceiptObserver.NONE);
    }

    private static GateStreams create(GateConfig config, OperationClassifiers operations, CredentialCheck credentials,
                                      ReceiptObserver receipts) {
        return create(config, operations, credentials, receipts, AttachmentCheck.WITHOUT_STORAGE);
    }

    private static GateStreams create(GateConfig config, OperationClassifiers operations, CredentialCheck credentials,
                                      ReceiptObserver receipts, AttachmentCheck attachments) {
        int partitions = InputPartitions.discover(config, DESCRIBE_TIMEOUT);
        LOG.info("gate routes by murmur2 over {} partitions per input topic", partitions);
        GroupCommits commits = GroupCommits.of(config.commitWhenDrained());
        return new GateStreams(GateTopology.build(config, operations, credentials, receipts, partitions, attachments,
                commits), properties(config), config, commits);
    }

    /**
     * What a stream thread that died does next: it is replaced. Failures about one record never get here (the
     * processors dead-letter them, see {@code Lifecycle.atomically}); what does is not about a record (a store or
     * client error), so the open transaction is aborted and a new thread resumes from the last commit: no work is
     * dropped, and the gate does not stop. Except for a security failure (authentication, TLS, a missing ACL):
     * a new thread would fail the same way forever, so the gate stops and names the cause. And except for a record
     * or a stored value of a version this release does not read, which a newer gate wrote (a downgrade): the
     * transaction is aborted, so nothing was changed, and the gate stops with one line naming the version and its
     * writer (docs/operating.md, "Upgrades").
     */
    static StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse uncaught(Throwable e) {
        UnknownFormatException newer = UnknownFormatException.in(e);
        if (newer != null) {
            LOG.error("{}", newer.getMessage());
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        if (KafkaFailures.isSecurityFailure(e)) {
            LOG.error("gate stream thread failed: {}; stopping the gate", KafkaFailures.describe(e));
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        LOG.error("gate stream thread failed ({}); replacing it", e.getClass().getName(), e);
        return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /**
     * Kafka Streams settings the gate sets differently from Kafka's defaults; {@code gate.streams.*} overrides them.
     * Each shortens waits only, never what a commit contains (see DESIGN.md, "Latency"):
     * <ul>
     *   <li>{@code commit.interval.ms} 50 (Kafka under exactly-once: 100): how often a stream thread that never
     *       drains its input (a backlog) commits. A thread that drains commits at once
     *       ({@value GateConfig#COMMIT_WHEN_DRAINED_CONFIG}); an idle gate commits nothing.</li>
     *   <li>{@code max.task.idle.ms} -1 (Kafka: 0): a gate task reads about ten input partitions (proposals,
     *       decisions, outcomes, reconciliations and the routing hops), most of them empty at any moment. At 0 the
     *       task holds back whenever one of them has data on the broker not yet fetched, to interleave the inputs
     *       by timestamp, and Kafka Streams formats a "waiting to fetch" message for every empty partition each
     *       time it asks whether the task may process. The gate uses neither stream time nor any order between
     *       its input topics (records of different topics come from different producers in no defined order; within
     *       a partition the order is kept either way), so it takes the fast path.</li>
     *   <li>{@code global.consumer.fetch.max.wait.ms} 5000 (Kafka: 500): the policy's global consumer only reads on
     *       once it has restored the global store, never pausing, seeking or being reassigned, so it is a
     *       {@link KafkaClients.ConsumerSpec#follower() follower}: its fetch is answered as soon as a policy record
     *       arrives, and an idle gate no longer sends it twice a second for nothing.</li>
     * </ul>
     * {@code poll.ms} stays Kafka's 100 while the gate has work: a poll returns as soon as records arrive, and the
     * commit no longer waits for the thread to wake up. A longer one for every poll (500) read fewer actions a second
     * with 16 HTTP hosts waiting in every pair measured, for a reason not found (a shorter one, 20, read no more:
     * docs/benchmark.md); an idle thread's polls wait {@link #idlePoll} instead.
     */
    public static final Map<String, String> STREAMS_DEFAULTS = Map.of(
            StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "50",
            StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, "-1",
            StreamsConfig.GLOBAL_CONSUMER_PREFIX + ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
            Integer.toString(KafkaClients.ConsumerSpec.FOLLOWER_FETCH_MAX_WAIT_MS));

    /**
     * Kafka Streams settings for recovery, apart from {@link #STREAMS_DEFAULTS}; {@code
     * gate.streams.*} overrides them:
     * <ul>
     *   <li>{@code num.standby.replicas} 1 (Kafka: 0): with two or more gate instances each task has a warm copy on
     *       another instance. An instance that dies and does not come back leaves its tasks to the instance holding
     *       the copy, which resumes them at once instead of restoring their changelogs first (a week of actions at
     *       the default dedupe window). The cost: every instance also reads the changelogs of the tasks it stands by
     *       for and keeps their state on disk.</li>
     *   <li>{@code acceptable.recovery.lag} 10000 (Kafka's, stated): a standby within that many changelog records
     *       of the end takes its task over at once; one further behind catches up as a warm-up replica first while
     *       the task stays where it is.</li>
     * </ul>
     */
    public static final Map<String, String> RECOVERY_DEFAULTS = Map.of(
            StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "1",
            StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, "10000");

    /**
     * The Kafka Streams properties of the gate: {@link #STREAMS_DEFAULTS}, {@link #RECOVERY_DEFAULTS},
     * {@code bootstrap.servers} and
     * {@code kafka.*} client settings, application id and state dir, then {@code gate.streams.*} overrides;
     * exactly-once v2 always. The stores are RocksDB ({@link GateStores}), their memory bounded by
     * {@link BoundedRocksDbMemory} when {@code gate.rocksdb.memory.bytes} is set and no
     * {@code gate.streams.rocksdb.config.setter} is.
     */
    public static Properties properties(GateConfig config) {
        Properties p = new Properties();
        p.putAll(STREAMS_DEFAULTS);
        p.putAll(RECOVERY_DEFAULTS);
        p.putAll(config.kafkaClientProperties());
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toString());
        p.putAll(config.streamsOverrides());
        if (config.rocksDbMemoryBytes() > 0 && !p.containsKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)) {
            p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbMemory.class);
            p.put(BoundedRocksDbMemory.TOTAL_BYTES_CONFIG, Long.toString(config.rocksDbMemoryBytes()));
        }
        // the gate's safety rests on this: an override cannot weaken it
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return p;
    }

    public Topology topology() {
        return topology;
    }

    /** The running streams (interactive queries, state listeners, metrics). */
    public KafkaStreams streams() {
        return streams;
    }

    /**
     * The current receipt of an action held by this instance (interactive query on {@code gate-actions}); empty when
     * this instance does not hold it. Throws Kafka's {@code InvalidStateStoreException} while the store is not
     * queryable (rebalance, restoration): answer 503 and retry.
     */
    public Optional<Receipt> localReceipt(String actionKey) {
        ReadOnlyKeyValueStore<String, ActionState> store = streams.store(
                StoreQueryParameters.fromNameAndType(GateStores.ACTIONS, QueryableStoreTypes.<String, ActionState>keyValueStore()));
        return Optional.ofNullable(store.get(actionKey)).map(StateRecords::receipt);
    }

    /**
     * Starts the streams, and the hanging-transaction watch unless {@code gate.transactions.hanging.check.interval}
     * is 0.
     */
    public synchronized void start() {
        LOG.debug("starting gate topology:\n{}", topology.describe());
        streams.start();
        if (!config.hangingCheckInterval().isZero()) {
            hanging = HangingTransactionWatch.of(config);
            hanging.start(config.hangingCheckInterval());
        }
    }

    /** Hanging transactions on the gate's partitions at the last look (0 when the watch is off). */
    public int hangingTransactions() {
        HangingTransactionWatch watch;
        synchronized (this) {
            watch = hanging;
        }
        return watch == null ? 0 : watch.current();
    }

    /**
     * Stops the gate within {@code timeout}; its stream threads leave their group first unless
     * {@value GateConfig#LEAVE_GROUP_ON_CLOSE_CONFIG} is false, so that its partitions are taken over now, not after
     * the group's session timeout.
     */
    public synchronized void close(Duration timeout) {
        if (hanging != null) {
            hanging.close();
        }
        streams.close(CloseOptions.timeout(timeout).withGroupMembershipOperation(config.leaveGroupOnClose()
                ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP : CloseOptions.GroupMembershipOperation.DEFAULT));
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
