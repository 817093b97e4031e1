package io.actiongate.loadtest.parts;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Decision;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.node.ActiongateNode;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.ReceiptWatcher;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.LatencyTable;

/**
 * Part "approval": the approval path end to end (row {@code ap}), on row f's node and provider. A burst of proposals
 * for the HUMAN-approval tool; a simulated approver reads the receipts and, for each {@code WAITING_APPROVAL} whose
 * action digest is the one it signed, publishes that action's signed APPROVE decision to {@code decisions}; an
 * action is done at its {@code SUCCEEDED} receipt. The decisions are signed before the clock starts (like every
 * record the benchmark sends), so the approver's own signing does not compete with the gate for the CPU: the row
 * measures the gate's verification, not the approver's signing. Rows {@code dl} and {@code dlh} then measure what
 * a decision waits for at light load, one action at a time on a node with {@code dev}'s settings: from the send of
 * the decision to the {@code SUCCEEDED} receipt, with decision ids beside their actions (as the approval service
 * chooses them: no hop) and off them (two hops, each a record the gate reads back after a commit), interleaved
 * on the same node. Row {@code dv} ({@link DecisionRow}) then measures the decisions alone: verified approval
 * decisions per second applied by one gate stream thread. See load-tests/README.md.
 */
public final class ApprovalPart implements BenchPart {

    /** Rows dl and dlh: {@code lightDecisions} actions each, one at a time, after {@code lightWarmup} of each. */
    public record Sizes(int lightDecisions, int lightWarmup) {
        public static final Sizes DEFAULT = new Sizes(100, 10);
    }

    private final Sizes sizes;

    public ApprovalPart() {
        this(Sizes.DEFAULT);
    }

    public ApprovalPart(Sizes sizes) {
        this.sizes = sizes;
    }

    @Override
    public String name() {
        return "approval";
    }

    @Override
    public String title() {
        return "the approval path end to end with a simulated approver, and decisions/s on one stream thread";
    }

    /** One round's records: proposals, and per action its signed decision, that decision's id and digest. */
    private record Round(Workload.Encoded proposals, byte[][] decisions, String[] decisionIds, String[] digests) {
        public int size() {
            return proposals.size();
        }
    }

    /** What one round measured. */
    public record Measured(int actions, int completed, double throughput, long[] sortedLatencies,
                    long[] sortedDecisionLatencies, long[] sortedWaitingLatencies, int decisionsSent,
                    int digestMismatches, int appliedOnce, List<String> keys) {
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        String bootstrap = ctx.bootstrap();
        int n = o.brokerActions();
        int warmup = Math.max(10, Math.min(200, n / 4));
        Measured m;
        long providerRequests;
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()
                .latency(Duration.ofMillis(o.providerLatencyMs()))) {
            String id = "bench-ap-" + UUID.randomUUID().toString().substring(0, 8);
            Workload workload = new Workload("T-" + id);
            ActiongateNode node = BrokerRuns.startNode(bootstrap, id, ctx.stateRoot(), o.partitions(), workload,
                    provider, o.nodeSettings(), "gate,executor");
            try (node) {
                Measured warm = round(ctx, bootstrap, id, round(workload, "apwarm", warmup, o.partitions(), 1),
                        "approval warm-up");
                check(ctx, provider, "approval warm-up", warm);
                m = round(ctx, bootstrap, id, round(workload, "ap", n, o.partitions(), 1), "row ap");
                check(ctx, provider, "row ap", m);
            }
            providerRequests = provider.totalRequests();
            ctx.invariant("row ap: provider requests, warm-up included", providerRequests == n + warmup,
                    providerRequests + " requests for " + (n + warmup) + " actions");
        }
        List<BenchRow> light;
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()
                .latency(Duration.ofMillis(o.providerLatencyMs()))) {
            light = lightDecisions(ctx, provider);
        }
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("partitions", String.valueOf(o.partitions()));
        notes.put("warmup", String.valueOf(warmup));
        notes.put("provider_requests", String.valueOf(providerRequests));
        notes.put("latency_from", "send() of the proposal (a burst, like row f)");
        putPercentiles(notes, "decision_to_succeeded", m.sortedDecisionLatencies());
        putPercentiles(notes, "proposal_to_waiting_approval", m.sortedWaitingLatencies());
        notes.put("decisions_signed", "before the clock (the approver only publishes)");
        BenchRow ap = new BenchRow(name(), "ap",
                "approval path: proposal -> WAITING_APPROVAL -> signed APPROVE -> SUCCEEDED", m.actions(),
                m.completed(), m.throughput(), BenchRow.Latency.ofSortedNanos(m.sortedLatencies()), "f", notes);
        int jit = DecisionRow.warmUpJvm(ctx);
        String warm = jit + " decisions, both id kinds, on a gate of its own before rows dv and dvh";
        BenchRow dv = DecisionRow.run(ctx, true, warm);
        BenchRow dvh = DecisionRow.run(ctx, false, warm);
        List<BenchRow> rows = new ArrayList<>();
        rows.add(ap);
        rows.addAll(light);
        rows.add(dv);
        rows.add(dvh);
        LatencyTable.print(rows, ctx.out());
        if (light.size() == 2 && light.get(0).latency() != null && light.get(1).latency() != null) {
            ctx.out().printf(Locale.ROOT, "  dl/dlh: a decision at light load waited p50 %.0f ms with its id beside "
                    + "its action, %.0f ms with an id that takes the two hops%n", light.get(0).latency().p50(),
                    light.get(1).latency().p50());
        }
        ctx.row("f").ifPresent(f -> ctx.out().printf(Locale.ROOT,
                "  ap: time per action %.2f x row f's (%.0f actions/s) in this run%n",
                f.throughput() / m.throughput(), f.throughput()));
        ctx.out().printf(Locale.ROOT, "  dv: %.0f verified decisions/s applied by one stream thread (%s), "
                + "ids beside their actions; dvh: %.0f/s with ids that take the hops (%.2f x dv)%n",
                dv.throughput(), DecisionRow.VERIFIER, dvh.throughput(), dvh.throughput() / dv.throughput());
        ctx.row("c2").ifPresent(c2 -> ctx.out().printf(Locale.ROOT,
                "  dv: %.2f x row c2's decisions/s (%.0f/s, TopologyTestDriver) in this run%n",
                dv.throughput() / c2.throughput(), c2.throughput()));
        return rows;
    }

    /**
     * Rows dl and dlh on a node of their own with {@code dev}'s latency settings and roles: actions one at a time,
     * each proposed, approved at its WAITING_APPROVAL receipt and awaited to SUCCEEDED before the next; even ones
     * with a decision id beside their action, odd ones with an id off it (row dlh; with one partition there is no
     * "off", and only row dl runs).
     */
    private List<BenchRow> lightDecisions(BenchContext ctx, SandboxWebhookProvider provider) throws Exception {
        BenchOptions o = ctx.options();
        boolean hops = o.partitions() > 1;
        String id = "bench-dl-" + UUID.randomUUID().toString().substring(0, 8);
        Workload workload = new Workload("T-" + id);
        Map<String, String> settings = new LinkedHashMap<>(OpenLoopPart.DEV_LATENCY_SETTINGS);
        settings.putAll(o.nodeSettings());
        OneAtATime warm;
        OneAtATime m;
        ActiongateNode node = BrokerRuns.startNode(ctx.bootstrap(), id, ctx.stateRoot(), o.partitions(),
                workload, provider, settings, OpenLoopPart.DEV_ROLES);
        try (node) {
            warm = oneAtATime(ctx, id, workload, "dlwarm", sizes.lightWarmup(), hops, "light decisions warm-up");
            m = oneAtATime(ctx, id, workload, "dl", sizes.lightDecisions(), hops,
                    "rows dl" + (hops ? " and dlh" : "") + " (one at a time)");
        }
        List<String> keys = new ArrayList<>(warm.keys());
        keys.addAll(m.keys());
        int expected = keys.size();
        int completed = warm.completed() + m.completed();
        int appliedOnce = warm.appliedOnce() + m.appliedOnce();
        ctx.invariant("rows dl/dlh: every action SUCCEEDED, warm-up included", completed == expected,
                completed + "/" + expected);
        ctx.invariant("rows dl/dlh: every decision applied once (one receipt answering it, and the SUCCEEDED one "
                + "carrying it)", appliedOnce == expected, appliedOnce + "/" + expected);
        OpenLoopPart.oneRequestEach(ctx, provider, "rows dl/dlh", keys);
        List<BenchRow> rows = new ArrayList<>();
        rows.add(lightRow("dl", "decision -> SUCCEEDED, one at a time, dev's settings, id beside its action (no hop)",
                m, 0, settings));
        if (hops) {
            rows.add(lightRow("dlh", "decision -> SUCCEEDED, one at a time, dev's settings, id off its action "
                    + "(2 hops)", m, 1, settings));
        }
        return rows;
    }

    private BenchRow lightRow(String id, String what, OneAtATime m, int parity, Map<String, String> settings) {
        List<Long> latencies = new ArrayList<>();
        List<Long> waiting = new ArrayList<>();
        int actions = 0;
        for (int i = parity; i < m.decisionLatencies().length; i += m.kinds()) {
            actions++;
            if (m.decisionLatencies()[i] >= 0) {
                latencies.add(m.decisionLatencies()[i]);
            }
            if (m.waitingLatencies()[i] >= 0) {
                waiting.add(m.waitingLatencies()[i]);
            }
        }
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("settings", settings.toString());
        notes.put("roles", OpenLoopPart.DEV_ROLES);
        notes.put("latency_from", "send() of the decision, at the action's WAITING_APPROVAL receipt");
        notes.put("hops_per_decision", parity == 0 ? "0" : "2");
        notes.put("interleaved", m.kinds() == 2 ? "dl and dlh alternate on one node" : "dl alone (one partition)");
        putPercentiles(notes, "proposal_to_waiting_approval",
                waiting.stream().mapToLong(Long::longValue).sorted().toArray());
        double seconds = m.seconds() / m.kinds();
        return new BenchRow(name(), id, what, actions, sorted.length, seconds > 0 ? sorted.length / seconds : 0,
                BenchRow.Latency.ofSortedNanos(sorted), null, notes);
    }

    /**
     * What {@link #oneAtATime} measured, per action: decision send to SUCCEEDED and proposal send to
     * WAITING_APPROVAL in nanoseconds (-1 when it did not happen); {@code kinds} id kinds alternate.
     */
    private record OneAtATime(List<String> keys, int kinds, long[] decisionLatencies, long[] waitingLatencies,
                              int completed, int appliedOnce, double seconds) {
    }

    /**
     * {@code n} actions of each id kind (beside, and with {@code hops} off), alternating, one at a time: the
     * proposal is sent, the simulated approver sends the pre-signed decision at its WAITING_APPROVAL receipt, and
     * the next proposal goes out after the SUCCEEDED receipt.
     */
    private static OneAtATime oneAtATime(BenchContext ctx, String id, Workload workload, String prefix, int n,
                                         boolean hops, String label) throws Exception {
        int kinds = hops ? 2 : 1;
        int total = n * kinds;
        int partitions = ctx.options().partitions();
        Round r = round(workload, prefix, total, partitions, kinds);
        List<String> keys = r.proposals().keys();
        List<byte[]> proposals = r.proposals().values();
        String[] decisionIds = r.decisionIds();
        String prefixed = id + ".";
        AtomicLongArray decidedAt = new AtomicLongArray(total);
        long[] sentAt = new long[total];
        long[] decisionLatencies = new long[total];
        long[] waitingLatencies = new long[total];
        int completed = 0;
        int appliedOnce = 0;
        long start;
        long end;
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger mismatches = new AtomicInteger();
        try (KafkaProducer<String, byte[]> approver = BrokerRuns.producer(ctx.bootstrap());
             ReceiptWatcher watcher = ReceiptWatcher.start(ctx.bootstrap(), Topics.RECEIPTS.name(prefixed), keys,
                     (i, receipt) -> {
                         if (approve(approver, Topics.DECISIONS.name(prefixed), r, i, receipt, decidedAt, sent,
                                 mismatches)) {
                             approver.flush(); // one decision in flight: do not wait for the producer's linger
                         }
                     });
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(ctx.bootstrap());
             Progress.Task task = ctx.progress().start(label, total)) {
            start = System.nanoTime();
            for (int i = 0; i < total; i++) {
                sentAt[i] = System.nanoTime();
                producer.send(new ProducerRecord<>(Topics.PROPOSALS.name(prefixed), keys.get(i), proposals.get(i)));
                producer.flush();
                boolean done = watcher.awaitSucceeded(i, Duration.ofSeconds(30));
                ReceiptWatcher.Track t = watcher.track(i);
                decisionLatencies[i] = done && decidedAt.get(i) != 0 ? t.succeededAt - decidedAt.get(i) : -1;
                waitingLatencies[i] = t.waitingAt != 0 ? t.waitingAt - sentAt[i] : -1;
                if (done) {
                    completed++;
                }
                if (t.approved == 1 && t.approvedDecisionIds.equals(List.of(decisionIds[i]))
                        && decisionIds[i].equals(t.succeededDecisionId)) {
                    appliedOnce++;
                }
                task.set(i + 1);
            }
            end = System.nanoTime();
        }
        ctx.invariant(label + ": one decision per action, bound to the digest on its WAITING_APPROVAL receipt",
                sent.get() == total && mismatches.get() == 0, sent.get() + " decisions sent for " + total
                        + " actions, " + mismatches.get() + " receipts with another action digest");
        return new OneAtATime(keys, kinds, decisionLatencies, waitingLatencies, completed, appliedOnce,
                (end - start) / 1e9);
    }

    private static void putPercentiles(Map<String, String> notes, String name, long[] sorted) {
        BenchRow.Latency l = BenchRow.Latency.ofSortedNanos(sorted);
        if (l != null) {
            notes.put(name + "_ms", String.format(Locale.ROOT, "p50 %.0f p95 %.0f p99 %.0f max %.0f", l.p50(),
                    l.p95(), l.p99(), l.max()));
        }
    }

    /**
     * {@code n} proposals for the HUMAN tool and their APPROVE decisions, signed now (before any clock), with ids
     * beside their actions among {@code partitions}, as the approval service chooses them; with {@code kinds} 2
     * every odd one gets an id on another partition instead.
     */
    private static Round round(Workload workload, String prefix, int n, int partitions, int kinds) {
        Instant at = Instant.now();
        List<String> keys = new ArrayList<>(n);
        List<byte[]> values = new ArrayList<>(n);
        byte[][] decisions = new byte[n][];
        String[] ids = new String[n];
        String[] digests = new String[n];
        for (int i = 0; i < n; i++) {
            String call = Workload.callId(prefix, i);
            ActionProposal p = workload.proposal(call, Workload.SEND_TOOL, i, at);
            keys.add(workload.key(call));
            values.add(Topics.PROPOSALS.valueSerde().serializer().serialize(null, p));
            Decision d = i % kinds == 0 ? workload.approve(p, at, partitions)
                    : workload.approveElsewhere(p, at, partitions);
            decisions[i] = Topics.DECISIONS.valueSerde().serializer().serialize(null, d);
            ids[i] = d.getDecisionId();
            digests[i] = d.getActionDigest();
        }
        return new Round(new Workload.Encoded(keys, values), decisions, ids, digests);
    }

    /** Sends every proposal at once; the approver answers each WAITING_APPROVAL; waits for every SUCCEEDED. */
    private static Measured round(BenchContext ctx, String bootstrap, String id, Round r, String label)
            throws Exception {
        int n = r.size();
        String prefix = id + ".";
        String decisionsTopic = Topics.DECISIONS.name(prefix);
        AtomicLongArray decidedAt = new AtomicLongArray(n);
        AtomicInteger decisionsSent = new AtomicInteger();
        AtomicInteger mismatches = new AtomicInteger();
        long[] sentAt = new long[n];
        long start;
        long[] doneAt;
        long[] waitingAt = new long[n];
        int appliedOnce = 0;
        try (KafkaProducer<String, byte[]> approver = BrokerRuns.producer(bootstrap);
             ReceiptWatcher watcher = ReceiptWatcher.start(bootstrap, Topics.RECEIPTS.name(prefix),
                     r.proposals().keys(), (i, receipt) -> approve(approver, decisionsTopic, r, i, receipt,
                             decidedAt, decisionsSent, mismatches));
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(bootstrap);
             Progress.Task task = ctx.progress().start(label, n)) {
            start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sentAt[i] = System.nanoTime();
                producer.send(new ProducerRecord<>(Topics.PROPOSALS.name(prefix), r.proposals().keys().get(i),
                        r.proposals().values().get(i)));
            }
            producer.flush();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).plusMillis(100L * n).toNanos();
            while (!watcher.awaitAllSucceeded(Duration.ofMillis(250))) {
                task.set(watcher.succeeded());
                if (System.nanoTime() > deadline || watcher.failure().isPresent()) {
                    break;
                }
            }
            task.set(watcher.succeeded());
            doneAt = watcher.succeededAt();
            for (int i = 0; i < n; i++) {
                ReceiptWatcher.Track t = watcher.track(i);
                waitingAt[i] = t.waitingAt;
                if (t.approved == 1 && t.approvedDecisionIds.equals(List.of(r.decisionIds()[i]))
                        && r.decisionIds()[i].equals(t.succeededDecisionId)) {
                    appliedOnce++;
                }
            }
        }
        long last = start;
        int completed = 0;
        for (long d : doneAt) {
            if (d != 0) {
                completed++;
                last = Math.max(last, d);
            }
        }
        long[] decided = new long[n];
        for (int i = 0; i < n; i++) {
            decided[i] = decidedAt.get(i);
        }
        return new Measured(n, completed, completed == 0 ? 0 : completed * 1e9 / (last - start),
                sorted(OpenLoopSchedule.latencies(sentAt, doneAt)),
                sorted(between(decided, doneAt)), sorted(OpenLoopSchedule.latencies(sentAt, waitingAt)),
                decisionsSent.get(), mismatches.get(), appliedOnce, r.proposals().keys());
    }

    /**
     * The simulated approver, on the receipt watcher's thread: the first WAITING_APPROVAL receipt of action {@code i}
     * gets its decision, provided the receipt names the action digest the decision was signed over.
     */
    private static boolean approve(KafkaProducer<String, byte[]> approver, String topic, Round r, int i,
                                   Receipt receipt, AtomicLongArray decidedAt, AtomicInteger sent,
                                   AtomicInteger mismatches) {
        if (receipt.getStatus() != ReceiptStatus.WAITING_APPROVAL || decidedAt.get(i) != 0) {
            return false;
        }
        if (!r.digests()[i].equals(receipt.getActionDigest())) {
            mismatches.incrementAndGet();
            return false;
        }
        decidedAt.set(i, System.nanoTime());
        approver.send(new ProducerRecord<>(topic, r.proposals().keys().get(i), r.decisions()[i]));
        sent.incrementAndGet();
        return true;
    }

    /** Per action: {@code to[i] - from[i]} when both happened, else -1. */
    private static long[] between(long[] from, long[] to) {
        long[] out = new long[from.length];
        for (int i = 0; i < from.length; i++) {
            out[i] = from[i] == 0 || to[i] == 0 ? -1 : to[i] - from[i];
        }
        return out;
    }

    private static long[] sorted(long[] values) {
        return Arrays.stream(values).filter(v -> v >= 0).sorted().toArray();
    }

    private static void check(BenchContext ctx, SandboxWebhookProvider provider, String what, Measured m) {
        ctx.invariant(what + ": every action SUCCEEDED", m.completed() == m.actions(),
                m.completed() + "/" + m.actions());
        OpenLoopPart.oneRequestEach(ctx, provider, what, m.keys());
        ctx.invariant(what + ": one decision per action, bound to the digest on its WAITING_APPROVAL receipt",
                m.decisionsSent() == m.actions() && m.digestMismatches() == 0,
                m.decisionsSent() + " decisions sent for " + m.actions() + " actions, " + m.digestMismatches()
                        + " receipts with another action digest");
        ctx.invariant(what + ": every decision applied once (one APPROVED receipt carrying it, and the SUCCEEDED one)",
                m.appliedOnce() == m.actions(), m.appliedOnce() + "/" + m.actions());
    }
}
