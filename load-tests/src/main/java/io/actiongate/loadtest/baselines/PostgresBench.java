package io.actiongate.loadtest.baselines;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.baseline.postgres.PgClaimService;
import io.actiongate.baseline.postgres.PostgresServer;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.digest.Digests;
import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.OutputWatcher;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.SteadyLoad;
import io.actiongate.loadtest.harness.Workload;

/**
 * Row pg: the Postgres claim-store baseline ({@link PgClaimService}) end to end on the run's broker, measured as row
 * f is: the same proposals produced at once by the same producer to a proposals topic, latency from each send to
 * its SUCCEEDED receipt read with {@code read_committed}, the same loopback provider and webhook connector, as many
 * workers as the executor has dispatch threads. After the timed burst (untimed) it redelivers a handful of
 * proposals unchanged and offers a handful of others with another input under the same key, then reads the claims
 * table back, so that {@link #check} can hold every action to exactly one claim, one provider request and one
 * receipt, and every conflicting offer to a refusal.
 */
public final class PostgresBench {

    /** Redelivered and conflicting proposals sent after the timed burst (each at most the burst's size). */
    public static final int REDELIVERIES = 5;
    private static final short REPLICATION_FACTOR = 1;
    /** The harness's producers ({@link BrokerRuns#producer}) write with acks=all. */
    public static final String PRODUCER_ACKS = "all";
    /** The service commits its offsets as often as row f's gate commits (Kafka Streams' commit interval). */
    private static final Duration COMMIT_INTERVAL = Duration.ofMillis(Long.parseLong(BrokerRuns.COMMIT_INTERVAL_MS));
    /** Progress units: PostgreSQL started, warm-up done, burst done, redeliveries done. */
    public static final int PHASES = 4;

    /** One checked invariant. */
    public record Check(String name, boolean held, String detail) {
    }

    /**
     * What the run did, as counted by the watchers, the service, the claims table and the provider.
     *
     * @param idempotencyKeys the Idempotency-Key of every proposal of the run (warm-up included), one per action
     */
    public record Outcome(int actions, int warmup, int receipts, int warmupReceipts, long claimInserts, long claimRows,
                   long claimsSucceeded, long failures, List<String> idempotencyKeys,
                   Map<String, Integer> requestsByKey, int redeliveriesSent, int redeliveryReceipts,
                   long redeliveriesCounted, int conflictsSent, int conflictsRefused, long conflictsCounted,
                   int conflictClaimsKept) {

        public Outcome {
            idempotencyKeys = List.copyOf(idempotencyKeys);
            requestsByKey = Map.copyOf(requestsByKey);
        }

        public int proposals() {
            return actions + warmup;
        }
    }

    public record Result(int actions, int warmup, int partitions, int threads, int maxPollRecords, BrokerRuns.Side side,
                  Map<String, String> postgres, Map<String, String> kafka, Outcome outcome, boolean fsync,
                  CpuAccount.Window cpu) {
        public long providerRequests() {
            return outcome.requestsByKey().values().stream().mapToLong(Integer::longValue).sum();
        }
    }

    private final int actions;
    private final int partitions;
    private final int threads;
    private final int maxPollRecords;
    private final int warmup;
    private final Duration providerLatency;
    private boolean fsync = true;
    private Duration rowTime = Duration.ZERO;

    /**
     * @param threads        workers (and connections) of the service: the executor's {@code executor.dispatch.threads}
     * @param maxPollRecords records per poll: the executor's {@code executor.max.poll.records}
     */
    public PostgresBench(int actions, int partitions, int threads, int maxPollRecords, Duration providerLatency) {
        this.actions = actions;
        this.partitions = partitions;
        this.threads = threads;
        this.maxPollRecords = maxPollRecords;
        this.providerLatency = providerLatency;
        this.warmup = Math.max(20, Math.min(500, actions / 4)); // as BrokerBench warms row f up
    }

    /**
     * Both sides durable per write ({@code true}, the default: PostgreSQL's defaults, and Kafka's
     * {@code log.flush.interval.messages=1} for the row) or neither ({@code synchronous_commit = off}, Kafka's
     * default of no fsync).
     */
    public PostgresBench fsync(boolean on) {
        this.fsync = on;
        return this;
    }

    /** Times a {@link SteadyLoad} window of {@code time} with {@code actions} in flight; zero: one burst. */
    public PostgresBench rowTime(Duration time) {
        this.rowTime = time;
        return this;
    }

    /**
     * Starts PostgreSQL under {@code stateRoot}, runs the baseline against the broker at {@code bootstrap}, stops
     * PostgreSQL and deletes its directory.
     *
     * @throws PostgresServer.UnavailableException when PostgreSQL is not installed
     */
    public Result run(String bootstrap, Path stateRoot) throws Exception {
        try (Progress.Task quiet = Progress.off().start("row pg", PHASES)) {
            return run(bootstrap, stateRoot, quiet);
        }
    }

    /** As {@link #run(String, Path)}, advancing {@code progress} by one of {@link #PHASES} units per phase. */
    public Result run(String bootstrap, Path stateRoot, Progress.Task progress) throws Exception {
        try (PostgresServer pg = PostgresServer.start(stateRoot)) {
            progress.set(1);
            return runOn(pg, bootstrap, progress);
        }
    }

    /** One row on a running PostgreSQL {@code pg}: a fresh claims table, topics of its own. */
    public Result runOn(PostgresServer pg, String bootstrap, Progress.Task progress) throws Exception {
        String id = "bench-pg-" + UUID.randomUUID().toString().substring(0, 8);
        String prefix = id + ".";
        String in = Topics.PROPOSALS.name(prefix);
        String receipts = Topics.RECEIPTS.name(prefix);
        String conflicts = Topics.CONFLICTS.name(prefix);
        {
            DataSource db = pg.dataSource();
            try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS claims");
            }
            PgClaimService.createSchema(db);
            Map<String, String> postgres = new LinkedHashMap<>(pg.durabilitySettings());
            postgres.put("synchronous_commit", fsync ? postgres.get("synchronous_commit") : "off (per connection)");
            Map<String, String> kafka;
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(in, partitions, REPLICATION_FACTOR),
                        new NewTopic(receipts, partitions, REPLICATION_FACTOR),
                        new NewTopic(conflicts, partitions, REPLICATION_FACTOR))).all().get();
                KafkaFlush.set(admin, fsync);
                kafka = kafkaDurability(admin);
            }
            Workload workload = new Workload("T-" + id);
            Instant at = Instant.now();
            boolean steady = !rowTime.isZero();
            String callPrefix = steady ? "pg0" : "pg";
            Workload.Encoded warm = workload.proposals("warm", Workload.READ_TOOL, warmup, at);
            Workload.Encoded burst = workload.proposals(callPrefix, Workload.READ_TOOL, steady ? SteadyLoad.CHUNK
                    : actions, at);
            Predicate<byte[]> succeeded = v -> Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, v)
                    .getStatus() == ReceiptStatus.SUCCEEDED;
            long pid = pg.postmasterPid();
            try (SandboxWebhookProvider provider = SandboxWebhookProvider.start().latency(providerLatency);
                 ConnectorRegistry connectors = ConnectorRegistry.load(webhookSettings(provider))) {
                BrokerRuns.Side warmSide;
                BrokerRuns.Side side;
                CpuAccount.Window cpu = null;
                List<String> burstKeys;
                Redelivery redelivery;
                PgClaimService.Counters counters;
                PgClaimService service = PgClaimService.start(bootstrap, prefix, id, db,
                        connectors.find(Workload.PROVIDER).orElseThrow(), threads, maxPollRecords, fsync,
                        COMMIT_INTERVAL, clientId -> BrokerRuns.producer(bootstrap, clientId));
                try {
                    warmSide = BrokerRuns.measure(bootstrap, in, receipts, warm, succeeded, null);
                    progress.set(2);
                    if (steady) {
                        SteadyLoad.Result r = SteadyLoad.run(bootstrap, in, receipts, i -> i == 0 ? burst
                                        : workload.proposals("pg" + i, Workload.READ_TOOL, SteadyLoad.CHUNK, at),
                                succeeded, null, actions, rowTime,
                                Map.of("postgres", () -> CpuAccount.processTreeTicks(pid)), null, 0);
                        side = r.side();
                        cpu = r.cpu();
                        burstKeys = r.keys();
                    } else {
                        side = BrokerRuns.measure(bootstrap, in, receipts, burst, succeeded, null);
                        burstKeys = burst.keys();
                    }
                    progress.set(3);
                    redelivery = redeliver(bootstrap, in, receipts, conflicts, workload, burst, at, succeeded,
                            callPrefix);
                } finally {
                    service.close();
                    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                        KafkaFlush.set(admin, false);
                    }
                }
                progress.set(PHASES);
                counters = service.counters();
                List<String> keys = new ArrayList<>(warm.keys());
                keys.addAll(burstKeys);
                List<String> idempotencyKeys = keys.stream().map(IdempotencyKeys::derived).toList();
                long[] table = claimCounts(db);
                int kept = claimsKept(db, workload, redelivery.conflictIndexes(), at, callPrefix);
                Outcome outcome = new Outcome(side.actions(), warmup, side.completed(), warmSide.completed(),
                        counters.claimed(), table[0], table[1], counters.failures(), idempotencyKeys,
                        provider.requestsByKey(), redelivery.redeliveriesSent(), redelivery.redeliveryReceipts(),
                        counters.redeliveries(), redelivery.conflictsSent(), redelivery.conflictsRefused(),
                        counters.conflicts(), kept);
                return new Result(side.actions(), warmup, partitions, threads, maxPollRecords, side, postgres,
                        kafka, outcome, fsync, cpu);
            }
        }
    }

    /** The webhook connector as {@code BrokerBench} configures the executor's. */
    public static Map<String, String> webhookSettings(SandboxWebhookProvider provider) {
        return Map.of("connectors.webhook.base-url", provider.baseUri().toString(),
                "connectors.webhook.operations", Workload.SEND_TOOL,
                "connectors.webhook.read-operations", Workload.READ_TOOL,
                "connectors.webhook.response-timeout-ms", "10000");
    }

    private record Redelivery(int redeliveriesSent, int redeliveryReceipts, int conflictsSent, int conflictsRefused,
                              List<Integer> conflictIndexes) {
    }

    /**
     * Sends {@link #REDELIVERIES} proposals of the burst again unchanged and as many others with another input
     * under the same key, and counts the receipts of the former and the conflicts reported for the latter.
     */
    private Redelivery redeliver(String bootstrap, String in, String receipts, String conflicts, Workload workload,
                                 Workload.Encoded burst, Instant at, Predicate<byte[]> succeeded, String callPrefix)
            throws Exception {
        int size = burst.size();
        int n = Math.min(REDELIVERIES, size);
        List<String> sameKeys = new ArrayList<>();
        List<byte[]> sameValues = new ArrayList<>();
        List<String> otherKeys = new ArrayList<>();
        List<byte[]> otherValues = new ArrayList<>();
        List<Integer> otherIndexes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sameKeys.add(burst.keys().get(i));
            sameValues.add(burst.values().get(i));
            int j = (n + i) % size;
            String call = Workload.callId(callPrefix, j);
            ActionProposal other = workload.proposal(call, Workload.READ_TOOL, j + 1_000_000, at);
            otherKeys.add(workload.key(call));
            otherValues.add(Topics.PROPOSALS.valueSerde().serializer().serialize(in, other));
            otherIndexes.add(j);
        }
        Duration timeout = Duration.ofSeconds(60);
        try (OutputWatcher same = OutputWatcher.start(bootstrap, receipts, sameKeys, succeeded);
             OutputWatcher other = OutputWatcher.start(bootstrap, conflicts, otherKeys, v -> true);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(bootstrap)) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(in, sameKeys.get(i), sameValues.get(i)));
                producer.send(new ProducerRecord<>(in, otherKeys.get(i), otherValues.get(i)));
            }
            producer.flush();
            same.awaitAll(timeout);
            other.awaitAll(timeout);
            return new Redelivery(n, done(same.doneAt()), n, done(other.doneAt()), otherIndexes);
        }
    }

    private static int done(long[] doneAt) {
        int count = 0;
        for (long t : doneAt) {
            if (t != 0) {
                count++;
            }
        }
        return count;
    }

    /** Rows of the claims table, and those settled SUCCEEDED. */
    private static long[] claimCounts(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE status = 'SUCCEEDED') FROM claims")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /** How many of the claims offered another input still hold the digest of the input first claimed. */
    private static int claimsKept(DataSource db, Workload workload, List<Integer> indexes, Instant at,
                                  String callPrefix) throws SQLException {
        int kept = 0;
        try (Connection c = db.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT input_digest FROM claims WHERE task_id = ? AND "
                     + "tool_call_id = ?")) {
            for (int j : indexes) {
                ActionProposal original = workload.proposal(Workload.callId(callPrefix, j), Workload.READ_TOOL, j,
                        at);
                s.setString(1, original.getTaskId());
                s.setString(2, original.getToolCallId());
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next() && Digests.inputDigest(original.getInputJson()).equals(rs.getString(1))) {
                        kept++;
                    }
                }
            }
        }
        return kept;
    }

    /**
     * Kafka's side of the durability comparison: what the producers ask for, the replication factor of the
     * benchmark's topics, and the broker's flush settings as it reports them.
     */
    public static Map<String, String> kafkaDurability(Admin admin) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("acks", PRODUCER_ACKS);
        settings.put("replication.factor", String.valueOf(REPLICATION_FACTOR));
        Node node = admin.describeCluster().nodes().get().iterator().next();
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
        Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);
        for (String name : List.of("log.flush.interval.messages", "log.flush.interval.ms", "min.insync.replicas")) {
            ConfigEntry entry = config.get(name);
            settings.put(name, entry == null ? "?" : String.valueOf(entry.value()));
        }
        return settings;
    }

    /** Every invariant of row pg on {@code o}; each must hold or the run describes a wrong baseline. */
    public static List<Check> check(Outcome o) {
        List<Check> checks = new ArrayList<>();
        int proposals = o.proposals();
        checks.add(new Check("row pg: every proposal claimed exactly once",
                o.claimInserts() == proposals && o.claimRows() == proposals && o.failures() == 0,
                o.claimInserts() + " claims inserted, " + o.claimRows() + " rows for " + proposals
                        + " proposals (warm-up included), " + o.failures() + " failed records"));
        checks.add(new Check("row pg: every claim settled SUCCEEDED", o.claimsSucceeded() == proposals,
                o.claimsSucceeded() + "/" + proposals));
        Set<String> expected = Set.copyOf(o.idempotencyKeys());
        List<String> doubled = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        for (String key : expected) {
            int requests = o.requestsByKey().getOrDefault(key, 0);
            if (requests == 0) {
                lost.add(key);
            } else if (requests > 1) {
                doubled.add(key + " x" + requests);
            }
        }
        Set<String> unexpected = o.requestsByKey().keySet().stream().filter(k -> !expected.contains(k))
                .collect(Collectors.toSet());
        long requests = o.requestsByKey().values().stream().mapToLong(Integer::longValue).sum();
        checks.add(new Check("row pg: one provider request per action (none lost, none doubled)",
                expected.size() == proposals && doubled.isEmpty() && lost.isEmpty() && unexpected.isEmpty(),
                requests + " requests for " + proposals + " actions; doubled " + sample(doubled) + ", lost "
                        + sample(lost) + ", unexpected keys " + sample(List.copyOf(unexpected))));
        checks.add(new Check("row pg: every receipt written",
                o.receipts() == o.actions() && o.warmupReceipts() == o.warmup(),
                o.receipts() + "/" + o.actions() + " SUCCEEDED receipts, warm-up " + o.warmupReceipts() + "/"
                        + o.warmup()));
        checks.add(new Check("row pg: a redelivered proposal answered from its claim, not dispatched again",
                o.redeliveryReceipts() == o.redeliveriesSent() && o.redeliveriesCounted() == o.redeliveriesSent(),
                o.redeliveryReceipts() + " receipts and " + o.redeliveriesCounted() + " redeliveries seen for "
                        + o.redeliveriesSent() + " sent"));
        checks.add(new Check("row pg: a conflicting-digest duplicate refused, the first claim kept",
                o.conflictsRefused() == o.conflictsSent() && o.conflictsCounted() == o.conflictsSent()
                        && o.conflictClaimsKept() == o.conflictsSent(),
                o.conflictsRefused() + " conflicts reported, " + o.conflictsCounted() + " counted, "
                        + o.conflictClaimsKept() + " claims kept their digest, for " + o.conflictsSent() + " sent"));
        return checks;
    }

    private static String sample(List<String> keys) {
        if (keys.isEmpty()) {
            return "none";
        }
        return keys.size() + " (" + String.join(", ", keys.subList(0, Math.min(3, keys.size())))
                + (keys.size() > 3 ? ", ..." : "") + ")";
    }
}
