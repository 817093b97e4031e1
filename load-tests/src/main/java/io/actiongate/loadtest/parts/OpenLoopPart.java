package io.actiongate.loadtest.parts;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.node.ActiongateNode;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.harness.ReceiptWatcher;
import io.actiongate.loadtest.harness.Workload;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.LatencyTable;

/**
 * Part "open-loop": latency of actiongate's read-only path (row f's node and provider) under a fixed arrival rate
 * below saturation, rows {@code ol<pct>} for each {@code --open-loop} percentage of row f's throughput, and at light
 * load with {@code dev}'s latency settings, one action at a time (row {@code light}). See load-tests/README.md.
 */
public final class OpenLoopPart implements BenchPart {

    /**
     * How long each rate runs: {@code max(minSeconds, minActions / rate)} seconds, at most {@code maxSeconds};
     * {@code warmup} actions in a burst before the rows; {@code lightActions} one at a time after
     * {@code lightWarmup} such actions.
     */
    public record Sizes(double minSeconds, int minActions, double maxSeconds, int warmup, int lightActions,
                 int lightWarmup) {
        public static final Sizes DEFAULT = new Sizes(15, 1_000, 120, 200, 100, 10);

        /** Actions sent at {@code rate} per second. */
        public int actionsAt(double rate) {
            double seconds = Math.min(maxSeconds, Math.max(minSeconds, minActions / rate));
            return Math.max(2, (int) Math.round(rate * seconds));
        }
    }

    /**
     * The settings {@code actiongate dev} gives its node (devkit's DevStack.devDefaults) that bear on a read-only
     * action's latency; the light row applies them over row f's. Keep in step with DevStack.
     */
    public static final Map<String, String> DEV_LATENCY_SETTINGS = devLatencySettings();

    /** Roles of the light row's node: those of {@code dev} that process actions ({@code dev} adds the approver). */
    public static final String DEV_ROLES = "all";

    /** A sender more than this far off its target arrival rate fails the run (the row measured another load). */
    public static final double RATE_TOLERANCE = 0.10;

    private static Map<String, String> devLatencySettings() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("executor.dispatch.threads", "4");
        d.put("gate.streams.commit.interval.ms", BrokerRuns.COMMIT_INTERVAL_MS); // dev leaves the gate's default
        d.put("connectors.webhook.response-timeout-ms", "2000");
        return Map.copyOf(d);
    }

    private final Sizes sizes;
    /** Actions sent to the provider's nodes in this run, warm-ups included. */
    private int sent;

    public OpenLoopPart() {
        this(Sizes.DEFAULT);
    }

    public OpenLoopPart(Sizes sizes) {
        this.sizes = sizes;
    }

    @Override
    public String name() {
        return "open-loop";
    }

    @Override
    public String title() {
        return "read-only latency under a fixed arrival rate and at light load";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        String bootstrap = ctx.bootstrap();
        List<BenchRow> rows = new ArrayList<>();
        sent = 0;
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()
                .latency(Duration.ofMillis(o.providerLatencyMs()))) {
            String id = "bench-ol-" + UUID.randomUUID().toString().substring(0, 8);
            Workload workload = new Workload("T-" + id);
            Topic topics = new Topic(bootstrap, id);
            ActiongateNode node = BrokerRuns.startNode(bootstrap, id, ctx.stateRoot(), o.partitions(), workload,
                    provider, o.nodeSettings(), "gate,executor");
            try (node) {
                Burst warm = burst(ctx, topics, workload, "olwarm", sizes.warmup(), "open-loop warm-up");
                checkBurst(ctx, provider, workload, "open-loop warm-up", warm);
                Optional<BenchRow> f = ctx.row("f").filter(r -> r.throughput() > 0);
                double saturation;
                String source;
                if (f.isPresent()) {
                    saturation = o.openLoopBase() > 0 ? o.openLoopBase() : f.get().throughput();
                    source = o.openLoopBase() > 0 ? String.format(Locale.ROOT, "--open-loop-base (row f moved "
                            + "%.0f/s)", f.get().throughput()) : "row f";
                } else {
                    // also the JVM's warm-up when no part before this one ran row f's load in it
                    Burst sat = burst(ctx, topics, workload, "olsat", o.brokerActions(), "open-loop saturation burst");
                    checkBurst(ctx, provider, workload, "open-loop saturation burst", sat);
                    String burst = "a burst of " + o.brokerActions() + " on this part's node";
                    if (o.openLoopBase() > 0) {
                        saturation = o.openLoopBase();
                        source = String.format(Locale.ROOT, "--open-loop-base (%s moved %.0f/s)", burst,
                                sat.throughput());
                    } else {
                        saturation = sat.throughput();
                        source = burst + " (row f did not run)";
                    }
                }
                ctx.out().printf(Locale.ROOT, "saturation: %.0f actions/s from %s%n", saturation, source);
                if (!(saturation > 0)) {
                    ctx.invariant("open-loop: a saturation to take percentages of", false,
                            "saturation " + saturation + " from " + source);
                } else {
                    for (int pct : o.openLoopPercents()) {
                        rows.add(openLoop(ctx, topics, workload, provider, pct, saturation, source));
                    }
                }
            }
            String lightId = "bench-light-" + UUID.randomUUID().toString().substring(0, 8);
            Workload lightWorkload = new Workload("T-" + lightId);
            Map<String, String> lightSettings = new LinkedHashMap<>(DEV_LATENCY_SETTINGS);
            lightSettings.putAll(o.nodeSettings());
            ActiongateNode lightNode = BrokerRuns.startNode(bootstrap, lightId, ctx.stateRoot(), o.partitions(),
                    lightWorkload, provider, lightSettings, DEV_ROLES);
            try (lightNode) {
                rows.add(light(ctx, new Topic(bootstrap, lightId), lightWorkload, provider, lightSettings));
            }
            ctx.invariant("open-loop: provider requests, all rows and warm-ups", provider.totalRequests() == sent,
                    provider.totalRequests() + " requests for " + sent + " actions");
        }
        LatencyTable.print(rows, ctx.out());
        return rows;
    }

    /** The proposals and receipts topics of one node. */
    public record Topic(String bootstrap, String proposals, String receipts) {
        public Topic(String bootstrap, String id) {
            this(bootstrap, Topics.PROPOSALS.name(id + "."), Topics.RECEIPTS.name(id + "."));
        }
    }

    /** A burst's outcome: keys sent, completed, completions per second from the first send to the last receipt. */
    public record Burst(List<String> keys, int completed, double throughput) {
    }

    /** Sends {@code n} read-only proposals at once and waits for their SUCCEEDED receipts. */
    private Burst burst(BenchContext ctx, Topic t, Workload workload, String prefix, int n, String label)
            throws Exception {
        Workload.Encoded records = workload.proposals(prefix, Workload.READ_TOOL, n, Instant.now());
        sent += n;
        try (ReceiptWatcher watcher = ReceiptWatcher.start(t.bootstrap(), t.receipts(), records.keys(), null);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(t.bootstrap());
             Progress.Task task = ctx.progress().start(label, n)) {
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(t.proposals(), records.keys().get(i), records.values().get(i)));
            }
            producer.flush();
            awaitAll(watcher, task, Duration.ofSeconds(60).plusMillis(100L * n));
            long last = start;
            for (long done : watcher.succeededAt()) {
                last = Math.max(last, done);
            }
            int completed = watcher.succeeded();
            return new Burst(records.keys(), completed, completed == 0 ? 0 : completed * 1e9 / (last - start));
        }
    }

    private static void checkBurst(BenchContext ctx, SandboxWebhookProvider provider, Workload workload, String what,
                                   Burst b) {
        ctx.invariant(what + ": every action SUCCEEDED", b.completed() == b.keys().size(),
                b.completed() + "/" + b.keys().size());
        oneRequestEach(ctx, provider, what, b.keys());
    }

    private static void awaitAll(ReceiptWatcher watcher, Progress.Task task, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!watcher.awaitAllSucceeded(Duration.ofMillis(250))) {
            task.set(watcher.succeeded());
            if (System.nanoTime() > deadline || watcher.failure().isPresent()) {
                return;
            }
        }
        task.set(watcher.succeeded());
    }

    /** Records that the provider saw exactly one request for every key of {@code keys}. */
    public static void oneRequestEach(BenchContext ctx, SandboxWebhookProvider provider, String what,
            List<String> keys) {
        int wrong = 0;
        String example = null;
        for (String key : keys) {
            int requests = provider.requests(IdempotencyKeys.derived(key));
            if (requests != 1) {
                wrong++;
                if (example == null) {
                    example = key + " had " + requests;
                }
            }
        }
        ctx.invariant(what + ": one provider request per action (none lost, none doubled)", wrong == 0,
                wrong == 0 ? keys.size() + " actions, one request each"
                        : wrong + " of " + keys.size() + " actions without exactly one request, e.g. " + example);
    }

    private BenchRow openLoop(BenchContext ctx, Topic t, Workload workload, SandboxWebhookProvider provider, int pct,
                              double saturation, String source) throws Exception {
        String id = "ol" + pct;
        double rate = saturation * pct / 100.0;
        int n = sizes.actionsAt(rate);
        Workload.Encoded records = workload.proposals(id, Workload.READ_TOOL, n, Instant.now());
        sent += n;
        AtomicInteger failedSends = new AtomicInteger();
        OpenLoopSchedule.Sent schedule;
        long[] doneAt;
        int completed;
        CpuAccount.Window cpu;
        try (ReceiptWatcher watcher = ReceiptWatcher.start(t.bootstrap(), t.receipts(), records.keys(), null);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(t.bootstrap());
             Progress.Task task = ctx.progress().start(String.format(Locale.ROOT, "row %s (%.0f/s)", id, rate), n)) {
            int step = Math.max(1, (int) (rate / 4));
            // the CPU of the whole row, its drain included: what an action costs at this fraction of saturation
            CpuAccount.Probe probe = CpuAccount.start();
            schedule = new OpenLoopSchedule(rate, OpenLoopSchedule.SYSTEM).run(n, i -> {
                producer.send(new ProducerRecord<>(t.proposals(), records.keys().get(i), records.values().get(i)),
                        (meta, e) -> {
                            if (e != null) {
                                failedSends.incrementAndGet();
                            }
                        });
                if (i % step == 0) {
                    task.set(watcher.succeeded());
                }
            });
            producer.flush();
            awaitAll(watcher, task, Duration.ofSeconds(60).plusMillis(20L * n));
            doneAt = watcher.succeededAt();
            completed = watcher.succeeded();
            cpu = probe.stop(completed);
        }
        long[] latencies = schedule.sortedLatencies(doneAt);
        long first = schedule.scheduledAt()[0];
        long last = first;
        for (long d : doneAt) {
            last = Math.max(last, d);
        }
        double throughput = completed == 0 ? 0 : completed * 1e9 / (last - first);
        double achieved = schedule.achievedRate();
        double off = achieved / rate - 1;
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("percent_of_saturation", String.valueOf(pct));
        notes.put("saturation_per_s", fmt(saturation));
        notes.put("saturation_from", source);
        notes.put("target_rate_per_s", fmt(rate));
        notes.put("achieved_rate_per_s", fmt(achieved));
        notes.put("seconds", fmt((schedule.sentAt()[n - 1] - schedule.sentAt()[0]) / 1e9));
        notes.put("max_send_lag_ms", fmt(schedule.maxLagNanos() / 1e6));
        notes.put("latency_from", "scheduled send time");
        if (Math.abs(off) > 0.03) {
            notes.put("schedule", String.format(Locale.ROOT, "the sender could not keep the schedule (%+.1f%%)",
                    100 * off));
        }
        if (failedSends.get() > 0) {
            notes.put("failed_sends", String.valueOf(failedSends.get()));
        }
        notes.putAll(cpu.notes());
        PartTables.cpu(id, cpu, ctx.options().rowSeconds(), ctx.out());
        ctx.invariant("row " + id + ": every action SUCCEEDED", completed == n, completed + "/" + n);
        oneRequestEach(ctx, provider, "row " + id, records.keys());
        ctx.invariant("row " + id + ": achieved arrival rate within " + Math.round(RATE_TOLERANCE * 100)
                        + "% of the target", Math.abs(off) <= RATE_TOLERANCE,
                String.format(Locale.ROOT, "achieved %.1f/s for a target of %.1f/s (%+.1f%%)", achieved, rate,
                        100 * off));
        return new BenchRow(name(), id, String.format(Locale.ROOT,
                "read-only at %d%% of saturation, fixed arrival rate (%.0f/s)", pct, rate), n, completed, throughput,
                BenchRow.Latency.ofSortedNanos(latencies), null, notes);
    }

    private BenchRow light(BenchContext ctx, Topic t, Workload workload, SandboxWebhookProvider provider,
                           Map<String, String> settings) throws Exception {
        oneAtATime(ctx, t, workload, "lightwarm", sizes.lightWarmup(), "light warm-up");
        int n = sizes.lightActions();
        Workload.Encoded records = workload.proposals("light", Workload.READ_TOOL, n, Instant.now());
        sent += n;
        long[] latencies = new long[n];
        int completed = 0;
        long start = System.nanoTime();
        long end;
        try (ReceiptWatcher watcher = ReceiptWatcher.start(t.bootstrap(), t.receipts(), records.keys(), null);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(t.bootstrap());
             Progress.Task task = ctx.progress().start("row light (one at a time)", n)) {
            start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(t.proposals(), records.keys().get(i), records.values().get(i)));
                producer.flush();
                if (watcher.awaitSucceeded(i, Duration.ofSeconds(30))) {
                    latencies[completed++] = watcher.track(i).succeededAt - sentAt;
                }
                task.set(i + 1);
            }
            end = System.nanoTime();
        }
        long[] sorted = java.util.Arrays.copyOf(latencies, completed);
        java.util.Arrays.sort(sorted);
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("settings", settings.toString());
        notes.put("roles", DEV_ROLES);
        notes.put("latency_from", "send() of each proposal, the next sent after the previous receipt");
        ctx.invariant("row light: every action SUCCEEDED", completed == n, completed + "/" + n);
        oneRequestEach(ctx, provider, "row light", records.keys());
        return new BenchRow(name(), "light", "read-only, one action at a time, dev's latency settings", n, completed,
                completed == 0 ? 0 : completed * 1e9 / (end - start), BenchRow.Latency.ofSortedNanos(sorted), null,
                notes);
    }

    /** {@code n} actions one after the other, each sent after the previous one's receipt (a warm-up). */
    private void oneAtATime(BenchContext ctx, Topic t, Workload workload, String prefix, int n, String label)
            throws Exception {
        Workload.Encoded records = workload.proposals(prefix, Workload.READ_TOOL, n, Instant.now());
        sent += n;
        int completed = 0;
        try (ReceiptWatcher watcher = ReceiptWatcher.start(t.bootstrap(), t.receipts(), records.keys(), null);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(t.bootstrap());
             Progress.Task task = ctx.progress().start(label, n)) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(t.proposals(), records.keys().get(i), records.values().get(i)));
                producer.flush();
                if (watcher.awaitSucceeded(i, Duration.ofSeconds(60))) {
                    completed++;
                }
                task.set(i + 1);
            }
        }
        ctx.invariant(label + ": every action SUCCEEDED", completed == n, completed + "/" + n);
    }

    public static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
