package io.actiongate.loadtest.parts;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.gate.GateConfig;
import io.actiongate.key.Partitioning;
import io.actiongate.node.ActiongateNode;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.OutputWatcher;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.RecordBudget;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.BenchRow;

/**
 * Row {@code dv} of part "approval": verified approval decisions per second applied by ONE gate stream thread on
 * the run's broker. A node with role gate only ({@value #STREAM_THREADS_KEY}{@code =1}, row f's settings
 * otherwise) first holds N actions of the HUMAN-approval tool in {@code WAITING_APPROVAL} (preloaded, untimed);
 * then N APPROVE decisions, signed before the clock, are produced at once and the clock runs until each action's
 * attempt reservation is on {@code attempts} (read_committed). That is the gate's whole decision path: Ed25519
 * verification, the single-use claim, the hop to the action's task, approver check, policy recheck, reservation and
 * the transactions. Then a few decisions are replayed, untimed: the same signed decision once more, and a newly
 * signed one reusing an applied decision id. Each must be refused {@code APPROVAL_REUSED} and reserve nothing.
 * Afterwards the attempts, receipts and dead letters of the round are read back to their end and checked.
 */
public final class DecisionRow {

    public static final String ID = "dv";
    /** The same row with decision ids that do not sit beside their actions, so most decisions take both hops. */
    public static final String HOPS_ID = "dvh";
    public static final String VERIFIER = "Bouncy Castle rfc8032 Ed25519";
    public static final String STREAM_THREADS_KEY = GateConfig.STREAMS_PREFIX + StreamsConfig.NUM_STREAM_THREADS_CONFIG;
    /** Replayed decisions of the measured round: half resent as they were, half re-signed with a used id. */
    public static final int REPLAYS = 6;
    public static final String ROLES = "gate";
    /** Decisions of each id kind {@link #warmUpJvm} applies at most. */
    public static final int JVM_WARMUP = 10_000;

    private static final Duration QUIESCE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private DecisionRow() {
    }

    /**
     * One round's records, encoded (and the decisions signed) before any clock: per action its proposal, its
     * APPROVE decision and that decision's id; {@code replays} are decisions sent again after the round, each for
     * the action {@code replayOf} names.
     */
    public record Round(Workload.Encoded proposals, Workload.Encoded decisions, List<String> decisionIds,
                 Workload.Encoded replays, List<Integer> replayOf) {
        public int size() {
            return proposals.size();
        }
    }

    /** One dead letter of an action of the round: the action's index, its reason code and payload SHA-256. */
    public record Letter(int action, String reasonCode, String payloadSha256) {
    }

    /**
     * What the topics held for a round's actions once the gate was quiet: per action the attempt reservations and
     * the decision ids on its APPROVED receipts, and the dead letters naming any of them.
     */
    public record Observed(int[] reservations, List<List<String>> approvedDecisionIds, List<Letter> deadLetters) {
    }

    /** How many replays were refused as such, and the dead letters that are not a replay's. */
    public record Replays(int refused, List<Letter> unmatched) {
    }

    /** One invariant, before it is recorded. */
    public record Check(String name, boolean held, String detail) {
    }

    /**
     * What one round measured; {@code streamCpuNanos} is the CPU time the gate's stream threads used while the
     * decisions were timed (-1 when the JVM does not measure thread CPU time).
     */
    public record Measured(BrokerRuns.Side preload, BrokerRuns.Side applied, long streamCpuNanos, CpuAccount.Window cpu,
                    Observed observed, List<Check> checks) {
    }

    /**
     * Decisions this JVM applies, untimed, before rows dv and dvh, on a gate node of its own: both kinds of
     * decision id, so that neither row pays for the JIT compilation of the decision path and the other does not
     * (measured: whichever row ran first ran 15 to 40 % slower, with three times the JIT and GC CPU per decision).
     */
    public static int warmUpJvm(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        int n = Math.min(o.decisions(), JVM_WARMUP);
        String id = "bench-dvjit-" + UUID.randomUUID().toString().substring(0, 8);
        Workload workload = new Workload("T-" + id);
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()) {
            ActiongateNode node = BrokerRuns.startNode(ctx.bootstrap(), id, ctx.stateRoot(), o.partitions(),
                    workload, provider, oneThread(o), ROLES);
            try (node) {
                record(ctx, measure(ctx, ctx.bootstrap(), id, round(workload, "jitbeside", n, 0, o.partitions()),
                        "decisions JVM warm-up, ids beside their actions").checks());
                record(ctx, measure(ctx, ctx.bootstrap(), id, round(workload, "jithops", n, 0, 1),
                        "decisions JVM warm-up, ids that hop").checks());
            }
        }
        return 2 * n;
    }

    /**
     * Measures row dv ({@code colocated}: every decision id chosen beside its action, as the approval service
     * chooses it) or row dvh (ids {@code d-<call>}, on another partition than their action for about
     * {@code (P - 1) / P} of them, as a third-party approver's random ids) on {@code ctx}'s broker, records its
     * invariants and returns the row; {@code jvmWarmUp} says what warmed this JVM before (a note of the row).
     */
    public static BenchRow run(BenchContext ctx, boolean colocated, String jvmWarmUp) throws Exception {
        BenchOptions o = ctx.options();
        String row = colocated ? ID : HOPS_ID;
        int idPartitions = colocated ? o.partitions() : 1;
        String bootstrap = ctx.bootstrap();
        int n = o.decisions();
        int warmup = Math.max(20, Math.min(5_000, n / 4));
        Measured m;
        int threads;
        long providerRequests;
        String id = "bench-" + row + "-" + UUID.randomUUID().toString().substring(0, 8);
        Workload workload = new Workload("T-" + id);
        Round warm = round(workload, row + "warm", warmup, 0, idPartitions);
        Round measured = round(workload, row, n, Math.min(REPLAYS, n), idPartitions);
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()
                .latency(Duration.ofMillis(o.providerLatencyMs()))) {
            try (ActiongateNode node = BrokerRuns.startNode(bootstrap, id, ctx.stateRoot(), o.partitions(),
                    workload, provider, oneThread(o), ROLES)) {
                threads = node.gate().map(g -> g.streams().metadataForLocalThreads().size()).orElse(0);
                Measured w = measure(ctx, bootstrap, id, warm, row + " warm-up");
                record(ctx, w.checks());
                m = measure(ctx, bootstrap, id, measured, "row " + row);
                record(ctx, m.checks());
            }
            providerRequests = provider.totalRequests();
        }
        ctx.invariant("row " + row + ": the gate ran one stream thread", threads == 1, threads + " stream threads");
        ctx.invariant("row " + row + ": no provider request (role gate only)", providerRequests == 0,
                providerRequests + " requests");
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("stream_threads", String.valueOf(threads));
        notes.put("verifier", VERIFIER);
        notes.put("roles", ROLES);
        notes.put("partitions", String.valueOf(o.partitions()));
        notes.put("warmup", String.valueOf(warmup));
        notes.put("jvm_warmup", jvmWarmUp);
        notes.put("latency_from", "send() of the decision (a burst of " + n + ")");
        notes.put("preload", String.format(Locale.ROOT, "%d proposals WAITING_APPROVAL before the clock (%.0f/s)",
                m.preload().completed(), m.preload().throughput()));
        notes.put("decisions_signed", "before the clock");
        notes.put("decision_ids", colocated
                ? "chosen beside their actions (Partitioning.colocatedDecisionId), as the approval service does"
                : "d-<call>, placed by their own murmur2 like any third-party approver's ids");
        notes.put("hops_per_decision", String.format(Locale.ROOT, "%.2f (counted from the ids: a decision hops "
                + "to its id's task and back when the two partitions differ)", hops(measured, o.partitions())));
        if (m.streamCpuNanos() > 0 && m.applied().completed() > 0) {
            double us = m.streamCpuNanos() / 1e3 / m.applied().completed();
            double wall = m.applied().completed() / m.applied().throughput();
            notes.put("stream_thread_cpu_us_per_decision", String.format(Locale.ROOT, "%.0f", us));
            notes.put("stream_thread_cpu_share", String.format(Locale.ROOT, "%.0f %% of the timed window",
                    100 * m.streamCpuNanos() / 1e9 / wall));
            notes.put("decisions_per_stream_thread_cpu_second", String.format(Locale.ROOT, "%.0f", 1e6 / us));
        }
        long[] latencies = m.applied().sortedLatencyNanos();
        if (latencies.length > 0) {
            // what the burst's first reservation waited: the fixed part of every decision's latency
            notes.put("first_reservation_ms", String.format(Locale.ROOT, "%.0f", latencies[0] / 1e6));
        }
        if (m.cpu() != null) {
            // the burst, from the first send to the last reservation read: the broker, this JVM's producer and
            // watcher and the gate share the machine
            notes.putAll(m.cpu().notes());
            PartTables.cpu(row, m.cpu(), 0, ctx.out());
        }
        int replays = Math.min(REPLAYS, n);
        notes.put("replays", String.format(Locale.ROOT,
                "%d sent after the clock (%d resent as they were, %d re-signed with a used decision_id), "
                        + "%d refused APPROVAL_REUSED", replays, (replays + 1) / 2, replays / 2,
                matchReplays(measured, m.observed()).refused()));
        return new BenchRow("approval", row,
                "signed APPROVE -> verify, claim, recheck -> reservation (one stream thread"
                        + (colocated ? ", no hop)" : ", hops)"), n,
                m.applied().completed(), m.applied().throughput(),
                BenchRow.Latency.ofSortedNanos(m.applied().sortedLatencyNanos()), "c2", notes);
    }

    /** The run's node settings with one gate stream thread, over any {@code --set}: the rows are about one thread. */
    private static Map<String, String> oneThread(BenchOptions o) {
        Map<String, String> settings = new HashMap<>(o.nodeSettings());
        settings.put(STREAM_THREADS_KEY, "1");
        return settings;
    }

    /**
     * Internal hops per decision of round {@code r} on {@code partitions}: two (to the id's task and back to the
     * action's) for a decision whose id and action key sit on different partitions, none otherwise; the decision
     * itself is produced to its action key's partition.
     */
    public static double hops(Round r, int partitions) {
        int hops = 0;
        for (int i = 0; i < r.size(); i++) {
            if (Partitioning.home(r.decisionIds().get(i), partitions)
                    != Partitioning.home(r.proposals().keys().get(i), partitions)) {
                hops += 2;
            }
        }
        return r.size() == 0 ? 0 : (double) hops / r.size();
    }

    private static void record(BenchContext ctx, List<Check> checks) {
        checks.forEach(c -> ctx.invariant(c.name(), c.held(), c.detail()));
    }

    /**
     * {@code n} proposals for the HUMAN tool and their APPROVE decisions, signed now (before any clock), and
     * {@code replays} replayed decisions spread over the round: even ones resent byte for byte, odd ones signed
     * anew (another {@code issued_at}) with the same decision id.
     */
    public static Round round(Workload workload, String prefix, int n, int replays, int idPartitions) {
        Instant at = Instant.now();
        List<String> keys = new ArrayList<>(n);
        List<byte[]> proposals = new ArrayList<>(n);
        List<byte[]> decisions = new ArrayList<>(n);
        List<String> ids = new ArrayList<>(n);
        List<ActionProposal> frozen = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String call = Workload.callId(prefix, i);
            ActionProposal p = workload.proposal(call, Workload.SEND_TOOL, i, at);
            frozen.add(p);
            keys.add(workload.key(call));
            proposals.add(Topics.PROPOSALS.valueSerde().serializer().serialize(null, p));
            Decision d = workload.approve(p, at, idPartitions);
            decisions.add(Topics.DECISIONS.valueSerde().serializer().serialize(null, d));
            ids.add(d.getDecisionId());
        }
        List<String> replayKeys = new ArrayList<>(replays);
        List<byte[]> replayValues = new ArrayList<>(replays);
        List<Integer> replayOf = new ArrayList<>(replays);
        for (int k = 0; k < replays; k++) {
            int i = (int) ((long) k * n / replays);
            replayOf.add(i);
            replayKeys.add(keys.get(i));
            replayValues.add(k % 2 == 0 ? decisions.get(i) : Topics.DECISIONS.valueSerde().serializer()
                    .serialize(null, workload.approve(frozen.get(i), at.plusSeconds(1), idPartitions)));
        }
        return new Round(new Workload.Encoded(keys, proposals), new Workload.Encoded(keys, decisions),
                List.copyOf(ids), new Workload.Encoded(replayKeys, replayValues), List.copyOf(replayOf));
    }

    /** Preloads, measures the decisions, replays, and reads the round back once the gate is quiet. */
    private static Measured measure(BenchContext ctx, String bootstrap, String id, Round r, String label)
            throws Exception {
        String prefix = id + ".";
        int n = r.size();
        BrokerRuns.Side preload;
        try (Progress.Task task = ctx.progress().start(label + ": proposals to WAITING_APPROVAL", n)) {
            preload = BrokerRuns.measure(bootstrap, Topics.PROPOSALS.name(prefix), Topics.RECEIPTS.name(prefix),
                    r.proposals(), status(ReceiptStatus.WAITING_APPROVAL), null, task, 0);
        }
        BrokerRuns.Side applied;
        long cpu = -1;
        CpuAccount.Window window = null;
        if (preload.completed() == n) {
            try (Progress.Task task = ctx.progress().start(label + ": decisions applied", n)) {
                long before = streamThreadCpuNanos(id);
                CpuAccount.Probe probe = CpuAccount.start();
                applied = BrokerRuns.measure(bootstrap, Topics.DECISIONS.name(prefix),
                        Topics.ATTEMPTS.name(prefix), r.decisions(), v -> true, null, task, 0);
                window = probe.stop(applied.completed());
                long after = streamThreadCpuNanos(id);
                cpu = before < 0 || after < 0 ? -1 : after - before;
            }
            replay(bootstrap, prefix, r);
        } else {
            applied = new BrokerRuns.Side(n, 0, 0, new long[0]);
        }
        Map<TopicPartition, Long> ends = RecordBudget.quiescentEndOffsets(bootstrap, prefix, QUIESCE_TIMEOUT);
        Observed observed = read(bootstrap, prefix, r, ends);
        return new Measured(preload, applied, cpu, window, observed, checks(label, r, preload.completed(),
                applied.completed(), observed));
    }

    /**
     * CPU time used so far by the stream threads of the gate {@code id} (Kafka Streams names them
     * {@code <client id>-StreamThread-<n>}, the client id starting with the application id); -1 when unmeasured.
     */
    public static long streamThreadCpuNanos(String id) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported() || !mx.isThreadCpuTimeEnabled()) {
            return -1;
        }
        long sum = 0;
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (t.getName().startsWith(id) && t.getName().contains("-StreamThread-")) {
                sum += Math.max(0, mx.getThreadCpuTime(t.getId()));
            }
        }
        return sum;
    }

    private static Predicate<byte[]> status(ReceiptStatus status) {
        return v -> Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, v).getStatus() == status;
    }

    /** Sends the round's replays and waits (bounded) until each has its dead letter. */
    private static void replay(String bootstrap, String prefix, Round r) throws InterruptedException {
        if (r.replays().size() == 0) {
            return;
        }
        Predicate<byte[]> reused = v -> Topics.DEAD_LETTERS.valueSerde().deserializer().deserialize(null, v)
                .getReasonCode().equals(ReasonCode.APPROVAL_REUSED.name());
        try (OutputWatcher watcher = OutputWatcher.start(bootstrap, Topics.DEAD_LETTERS.name(prefix),
                r.replays().keys(), reused);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(bootstrap)) {
            for (int k = 0; k < r.replays().size(); k++) {
                producer.send(new ProducerRecord<>(Topics.DECISIONS.name(prefix), r.replays().keys().get(k),
                        r.replays().values().get(k)));
            }
            producer.flush();
            watcher.awaitAll(QUIESCE_TIMEOUT);
        }
    }

    /** Reads attempts, receipts and dead letters from their start to {@code ends}, read_committed. */
    public static Observed read(String bootstrap, String prefix, Round r, Map<TopicPartition, Long> ends) {
        int n = r.size();
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(r.proposals().keys().get(i), i);
        }
        int[] reservations = new int[n];
        List<List<String>> approved = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            approved.add(new ArrayList<>());
        }
        List<Letter> letters = new ArrayList<>();
        String attempts = Topics.ATTEMPTS.name(prefix);
        String receipts = Topics.RECEIPTS.name(prefix);
        String deadLetters = Topics.DEAD_LETTERS.name(prefix);
        Map<TopicPartition, Long> spans = new HashMap<>();
        ends.forEach((tp, end) -> {
            if (end > 0 && (tp.topic().equals(attempts) || tp.topic().equals(receipts)
                    || tp.topic().equals(deadLetters))) {
                spans.put(tp, end);
            }
        });
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(spans.keySet());
            consumer.seekToBeginning(spans.keySet());
            List<TopicPartition> open = new ArrayList<>(spans.keySet());
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!open.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + open + " to their end within " + READ_TIMEOUT);
                }
                for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
                    if (rec.offset() >= spans.get(new TopicPartition(rec.topic(), rec.partition()))
                            || rec.key() == null) {
                        continue;
                    }
                    Integer i = index.get(new String(rec.key(), StandardCharsets.UTF_8));
                    if (i == null) {
                        continue; // another round's action
                    }
                    if (rec.topic().equals(attempts)) {
                        reservations[i]++;
                    } else if (rec.topic().equals(receipts)) {
                        Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, rec.value());
                        // the receipt an approval answers (one receipt per input, no APPROVED on the way)
                        if (receipt.getStatus() == ReceiptStatus.DISPATCHING && receipt.getDecisionId() != null) {
                            approved.get(i).add(receipt.getDecisionId());
                        }
                    } else {
                        DeadLetter letter = Topics.DEAD_LETTERS.valueSerde().deserializer().deserialize(null,
                                rec.value());
                        letters.add(new Letter(i, letter.getReasonCode(), letter.getPayloadSha256()));
                    }
                }
                open.removeIf(tp -> consumer.position(tp) >= spans.get(tp));
            }
        }
        return new Observed(reservations, approved, letters);
    }

    /**
     * Matches each replay with one dead letter of its action carrying its exact bytes (by SHA-256) and reason
     * {@code APPROVAL_REUSED}; the letters left over name decisions the gate refused that were not replays.
     */
    public static Replays matchReplays(Round r, Observed o) {
        List<Letter> unmatched = new ArrayList<>(o.deadLetters());
        int refused = 0;
        for (int k = 0; k < r.replays().size(); k++) {
            Letter expected = new Letter(r.replayOf().get(k), ReasonCode.APPROVAL_REUSED.name(),
                    Digests.sha256Hex(r.replays().values().get(k)));
            if (unmatched.remove(expected)) {
                refused++;
            }
        }
        return new Replays(refused, unmatched);
    }

    /**
     * The invariants of one round, from what was measured and read back: every proposal waited for approval, every
     * decision was applied exactly once (one reservation and one APPROVED receipt carrying its id per action), no
     * decision was refused but the replays, and every replay was refused {@code APPROVAL_REUSED}.
     */
    public static List<Check> checks(String label, Round r, int waiting, int applied, Observed o) {
        int n = r.size();
        List<Check> out = new ArrayList<>();
        out.add(new Check(label + ": every proposal WAITING_APPROVAL before the clock", waiting == n,
                waiting + "/" + n));
        out.add(new Check(label + ": every decision applied (its reservation on attempts, read_committed)",
                applied == n, applied + "/" + n));
        int once = 0;
        int reservations = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            reservations += o.reservations()[i];
            List<String> ids = o.approvedDecisionIds().get(i);
            if (o.reservations()[i] == 1 && ids.equals(List.of(r.decisionIds().get(i)))) {
                once++;
            } else if (wrong.size() < 3) {
                wrong.add(r.proposals().keys().get(i) + ": " + o.reservations()[i] + " reservations, APPROVED by "
                        + ids);
            }
        }
        out.add(new Check(label + ": every decision applied exactly once (one APPROVED receipt carrying its "
                + "decision id, one reservation per action)", once == n && reservations == n,
                once + "/" + n + ", " + reservations + " reservations" + (wrong.isEmpty() ? "" : "; " + wrong)));
        Replays replays = matchReplays(r, o);
        List<Letter> unmatched = replays.unmatched();
        int refused = replays.refused();
        out.add(new Check(label + ": no decision refused but the replays", unmatched.isEmpty(),
                unmatched.size() + " other dead letters" + (unmatched.isEmpty() ? ""
                        : ", e.g. " + unmatched.get(0).reasonCode())));
        out.add(new Check(label + ": every replayed decision id refused APPROVAL_REUSED, none reserved again",
                refused == r.replays().size() && reservations <= n,
                refused + "/" + r.replays().size() + " replays refused, " + reservations + " reservations for "
                        + n + " actions"));
        return out;
    }
}
