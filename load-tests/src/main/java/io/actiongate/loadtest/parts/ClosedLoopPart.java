package io.actiongate.loadtest.parts;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.client.ActionGateClient;
import io.actiongate.client.ActionReceipt;
import io.actiongate.client.ProposalRequest;
import io.actiongate.client.Until;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.CpuAccount;
import io.actiongate.loadtest.harness.DevNodeProcess;
import io.actiongate.loadtest.harness.LoopbackHttp;
import io.actiongate.loadtest.harness.NodeJvm;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchRow;

/**
 * Part "closed-loop": hosts that wait for each answer, where tool hosts live. {@code actiongate dev} runs in a JVM of
 * its own ({@link DevNodeProcess}: dev's components and settings, with dev's JVM options unless
 * {@code --dev-java-opts} says otherwise), and this JVM is the tool host: C callers in a closed loop, each sending
 * its next read-only call (dev's demo tool {@code webhook/get_notes}, approval NONE, task {@code T-1}) only once the
 * previous one's answer is back, first over Kafka (the Java client: proposal, then its {@code SUCCEEDED} receipt read
 * {@code read_committed}), then over HTTP (one keep-alive connection per caller: {@code POST /v1/proposals} asking
 * to wait for the terminal state, and the long poll {@code GET /v1/actions/...?wait=30s} if the answer is not yet
 * terminal). Before the first row of each transport, one untimed round of the most hosts warms dev's JIT until its
 * compilers are quiet ({@code --closed-loop-jit-seconds} at most). Each row runs half its timed length untimed first
 * (warm-up), then counts the calls answered within the timed window: throughput, p50/p99 and the machine's CPU per
 * action (from {@code /proc/stat}: everything on the machine, the host included), dev's share by thread group. Row
 * {@code idle}: dev's CPU, in cores, with nothing to do, after the load rows, once its compilers and log cleaners
 * are quiet. Invariants: every call ended {@code SUCCEEDED}, and the provider saw exactly one request per action.
 */
public final class ClosedLoopPart implements BenchPart {

    public static final String TASK = "T-1";
    public static final String ORG = "demo";
    public static final String PRINCIPAL = "bench-host";
    public static final String PROFILE = "assistant";
    public static final String TOOL = "get_notes";
    public static final String SCHEMA_HASH = "sha256:demo-get-notes-v1";
    public static final String HOST_TOKEN = "bench-closed-loop-host-token-0123456789";
    /** {@code ./actiongate dev}'s default JVM options (ACTIONGATE_JAVA_OPTS unset). */
    public static final List<String> DEV_JAVA_OPTS = List.of("-XX:+UseSerialGC");
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration IDLE_SETTLE = Duration.ofSeconds(5);
    /**
     * After the load rows dev still finishes what they left, for tens of seconds: its compilers work through what the
     * rows queued and its broker's log cleaners compact the topics they wrote. The idle row waits, {@link
     * #IDLE_SETTLE} at a time and at most this long, until those threads used less than {@link #IDLE_QUIET_CORES} of
     * a core over one such step, so that it measures what dev does with nothing to do and not the end of the load.
     */
    private static final Duration IDLE_SETTLE_MAX = Duration.ofSeconds(90);
    private static final double IDLE_QUIET_CORES = 0.005;
    private static final Duration IDLE_WINDOW = Duration.ofSeconds(20);
    /** The JIT warm-up ends once dev's compilers used less than this share of a core over {@link #JIT_WINDOW}. */
    private static final double JIT_QUIET_CORES = 0.05;
    private static final Duration JIT_WINDOW = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One caller's way of making one call and waiting for its answer: the final status. */
    public interface Host extends AutoCloseable {
        String call(String toolCallId, String query) throws Exception;

        @Override
        default void close() {
        }
    }

    @Override
    public String name() {
        return "closed-loop";
    }

    @Override
    public String title() {
        return "hosts that wait for each answer, against actiongate dev (Kafka and HTTP)";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        Path dir = ctx.stateRoot().resolve("closed-loop");
        Files.createDirectories(dir);
        Path tokens = dir.resolve("host-tokens");
        Files.writeString(tokens, HOST_TOKEN + " " + PRINCIPAL + " " + ORG + " " + PROFILE + "\n",
                StandardCharsets.UTF_8);
        int httpPort = freePort();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(DevNodeProcess.DATA_DIR, dir.resolve("dev-data").toString());
        settings.put(DevNodeProcess.PROVIDER_LATENCY_MS, Integer.toString(o.closedLoopProviderLatencyMs()));
        settings.put("http.port", Integer.toString(httpPort));
        settings.put("http.proposals.tokens.file", tokens.toString());
        settings.putAll(o.nodeSettings());
        List<String> jvm = o.devJavaOpts() == null ? DEV_JAVA_OPTS
                : List.of(o.devJavaOpts().strip().split("\\s+"));
        ctx.out().printf(Locale.ROOT, "dev JVM options: %s; hosts %s; %d s timed per row after %d s of warm-up "
                        + "(and first one untimed round per transport for dev's JIT)%n",
                String.join(" ", jvm), o.closedLoopHosts(), o.closedLoopSeconds(), warmupSeconds(o));
        List<BenchRow> rows = new ArrayList<>();
        long proposed = 0;
        try (NodeJvm dev = NodeJvm.start("dev", DevNodeProcess.class, jvm, settings, dir)) {
            dev.awaitReady();
            String bootstrap = dev.readyField("bootstrap");
            ActionGateClient client = ActionGateClient.builder().bootstrapServers(bootstrap)
                    .kafkaProperty("client.id", CpuAccount.LOAD_CLIENT_ID).build();
            // dev's tiered compilation reaches C2 code only after some thousand actions, and under load its C2
            // compiler thread used about half a core for the first minute: one untimed round of the largest host
            // count on each transport first, until the compilers are quiet, so that no row measures them at work
            int most = o.closedLoopHosts().stream().mapToInt(Integer::intValue).max().orElse(1);
            try (client) {
                if (o.closedLoopTransports().contains("kafka")) {
                    proposed += warmUp(ctx, "kjit", most, () -> kafkaHost(client), dev);
                }
                if (o.closedLoopTransports().contains("http")) {
                    proposed += warmUp(ctx, "hjit", most,
                            () -> httpHost(new LoopbackHttp("127.0.0.1", httpPort, HOST_TOKEN)), dev);
                }
                for (int hosts : o.closedLoopTransports().contains("kafka") ? o.closedLoopHosts() : List.<Integer>of()) {
                    Measured m = measure(ctx, "k" + hosts, hosts, () -> kafkaHost(client), dev);
                    rows.add(m.row(ctx, "Kafka", hosts));
                    proposed += m.proposed;
                }
            }
            for (int hosts : o.closedLoopTransports().contains("http") ? o.closedLoopHosts() : List.<Integer>of()) {
                Measured m = measure(ctx, "h" + hosts, hosts,
                        () -> httpHost(new LoopbackHttp("127.0.0.1", httpPort, HOST_TOKEN)), dev);
                rows.add(m.row(ctx, "HTTP", hosts));
                proposed += m.proposed;
            }
            rows.add(idle(ctx, dev));
            String provider = dev.request("provider", "PROVIDER");
            long requests = Long.parseLong(field(provider, "requests"));
            long keys = Long.parseLong(field(provider, "keys"));
            long max = Long.parseLong(field(provider, "max"));
            ctx.invariant("one provider request per call", requests == proposed && keys == proposed && max == 1,
                    String.format(Locale.ROOT, "%d calls, %d provider requests for %d keys, at most %d per key",
                            proposed, requests, keys, max));
        }
        return rows;
    }

    /**
     * What dev's broker counts ({@link DevNodeProcess#kafkaCounters}), by their names there: its requests by kind, then
     * its {@code CONCURRENT_TRANSACTIONS} answers.
     */
    public static final List<String> KAFKA_COUNTERS = DevNodeProcess.COUNTERS;

    private static long[] kafkaCounters(NodeJvm dev) throws IOException, InterruptedException {
        String line = dev.request("kafka", "KAFKA");
        long[] values = new long[KAFKA_COUNTERS.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = Long.parseLong(field(line, KAFKA_COUNTERS.get(i)));
        }
        return values;
    }

    /**
     * An untimed round that only warms dev's JIT: {@code hosts} callers for at least one row's length (its warm-up and
     * timed seconds), then on until dev's compiler threads used less than {@link #JIT_QUIET_CORES} of a core over the
     * last {@link #JIT_WINDOW}, or until {@code --closed-loop-jit-seconds}. Its calls must all succeed, and count for
     * the provider check.
     */
    private long warmUp(BenchContext ctx, String id, int hosts, HostFactory factory, NodeJvm dev) throws Exception {
        BenchOptions o = ctx.options();
        long least = warmupSeconds(o) + o.closedLoopSeconds();
        long ticks = dev.compilerTicks();
        // no /proc to read the compilers from: one row's length, as a row's own warm-up
        long most = ticks < 0 ? least : Math.max(least, o.closedLoopJitSeconds());
        long window = JIT_WINDOW.toSeconds();
        Callers callers = new Callers(id, hosts, factory);
        long seconds = 0;
        double jitCores = Double.NaN;
        try (Progress.Task task = ctx.progress().start("round " + id + " (" + hosts
                + " waiting hosts warm dev's JIT, seconds at most)", most)) {
            callers.start();
            while (seconds < most) {
                sleep(Duration.ofSeconds(1), task);
                seconds++;
                if (seconds % window == 0) {
                    long now = dev.compilerTicks();
                    // unreadable, or a compiler thread that ended took its ticks along: not a quiet window
                    jitCores = CpuAccount.coresBetween(ticks, now, window);
                    ticks = now;
                    if (seconds >= least && jitCores < JIT_QUIET_CORES) {
                        break;
                    }
                }
            }
            callers.stop();
        }
        ctx.out().printf(Locale.ROOT, "%-4s %d waiting hosts warmed dev's JIT for %d s (untimed); its compilers used "
                + "%s of a core over the last %d s%n", id, hosts, seconds,
                Double.isNaN(jitCores) ? "an unknown share" : String.format(Locale.ROOT, "%.3f", jitCores), window);
        ctx.invariant("JIT warm-up " + id + ": every call SUCCEEDED", callers.failed.get() == 0,
                callers.failed.get() == 0 ? callers.proposed.get() + " calls" : callers.failed.get() + " of "
                        + callers.proposed.get() + " calls did not: " + callers.firstFailure.get());
        return callers.proposed.get();
    }

    private static int warmupSeconds(BenchOptions o) {
        return Math.max(1, o.closedLoopSeconds() / 2);
    }

    /** What one row measured. */
    private static final class Measured {
        public final String id;
        public final long proposed;
        public final long failed;
        public final String firstFailure;
        public final long[] latencies;
        public final CpuAccount.Window window;
        /** {@link #KAFKA_COUNTERS} over the timed window. */
        public final long[] kafka;

        public Measured(String id, long proposed, long failed, String firstFailure, long[] latencies,
                 CpuAccount.Window window, long[] kafka) {
            this.kafka = kafka;
            this.id = id;
            this.proposed = proposed;
            this.failed = failed;
            this.firstFailure = firstFailure;
            this.latencies = latencies;
            this.window = window;
        }

        public BenchRow row(BenchContext ctx, String transport, int hosts) {
            BenchRow.Latency latency = BenchRow.Latency.ofSortedNanos(latencies);
            double throughput = latencies.length / window.seconds();
            Map<String, String> notes = new LinkedHashMap<>(window.notes());
            notes.put("hosts", Integer.toString(hosts));
            notes.put("transport", transport);
            for (int i = 0; i < KAFKA_COUNTERS.size(); i++) {
                notes.put(KAFKA_COUNTERS.get(i) + "_per_action", latencies.length == 0 ? "n/a"
                        : String.format(Locale.ROOT, "%.2f", (double) kafka[i] / latencies.length));
            }
            BenchRow row = new BenchRow("closed-loop", id, hosts + (hosts == 1 ? " host" : " hosts")
                    + " waiting for each answer over " + transport, latencies.length,
                    latencies.length, throughput, latency, null, notes);
            ctx.invariant("row " + id + ": every call SUCCEEDED", failed == 0,
                    failed == 0 ? proposed + " calls" : failed + " of " + proposed + " calls did not: " + firstFailure);
            StringBuilder requests = new StringBuilder();
            for (String name : KAFKA_COUNTERS) {
                requests.append(requests.length() == 0 ? "" : " ").append(name).append(' ')
                        .append(notes.get(name + "_per_action"));
            }
            ctx.out().printf(Locale.ROOT, "%-4s %-32s %8.0f actions/s  p50 %6.1f ms  p99 %6.1f ms%n"
                            + "     broker requests and answers per action: %s%n     %s%n", id,
                    hosts + " waiting over " + transport, throughput, latency == null ? Double.NaN : latency.p50(),
                    latency == null ? Double.NaN : latency.p99(), requests, window.describe());
            return row;
        }
    }

    @FunctionalInterface
    private interface HostFactory {
        Host create() throws Exception;
    }

    private Measured measure(BenchContext ctx, String id, int hosts, HostFactory factory, NodeJvm dev)
            throws Exception {
        long[] kafka = new long[KAFKA_COUNTERS.size()];
        BenchOptions o = ctx.options();
        CpuAccount.Window window;
        Callers callers = new Callers(id, hosts, factory);
        try (Progress.Task task = ctx.progress().start("row " + id + " (" + hosts + " waiting hosts, seconds)",
                warmupSeconds(o) + o.closedLoopSeconds())) {
            callers.start();
            sleep(Duration.ofSeconds(warmupSeconds(o)), task);
            CpuAccount.Probe probe = CpuAccount.start(Map.of("dev", dev.cpuByGroup()));
            long[] before = kafkaCounters(dev);
            callers.timing.set(true);
            sleep(Duration.ofSeconds(o.closedLoopSeconds()), task);
            callers.timing.set(false);
            window = probe.stop(callers.latencies.size());
            long[] after = kafkaCounters(dev);
            for (int i = 0; i < kafka.length; i++) {
                kafka[i] = after[i] - before[i];
            }
            callers.stop();
        }
        long[] sorted = callers.latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Measured(id, callers.proposed.get(), callers.failed.get(), callers.firstFailure.get(), sorted,
                window, kafka);
    }

    /**
     * {@code hosts} callers in a closed loop, each on a thread of its own sending its next call only once the
     * previous one's answer is back; the latency of a call sent and answered while {@link #timing} is set is kept.
     */
    private static final class Callers {
        final AtomicBoolean timing = new AtomicBoolean();
        final AtomicLong proposed = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicReference<String> firstFailure = new AtomicReference<>();
        final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();

        Callers(String id, int hosts, HostFactory factory) throws Exception {
            String run = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
            for (int t = 0; t < hosts; t++) {
                int caller = t;
                Host host = factory.create();
                Thread thread = new Thread(() -> {
                    try (host) {
                        long n = 0;
                        while (!stop.get()) {
                            call(host, "cl-" + id + "-" + run + "-" + caller + "-" + n++);
                        }
                    }
                }, CpuAccount.LOAD_CLIENT_ID + "-" + id + "-" + t);
                thread.setDaemon(true);
                threads.add(thread);
            }
        }

        private void call(Host host, String callId) {
            boolean timed = timing.get();
            proposed.incrementAndGet();
            long start = System.nanoTime();
            String status;
            try {
                status = host.call(callId, Long.toHexString(ThreadLocalRandom.current().nextLong()));
            } catch (Exception e) {
                status = e.getClass().getSimpleName();
            }
            long elapsed = System.nanoTime() - start;
            if (!"SUCCEEDED".equals(status)) {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, callId + ": " + status);
            } else if (timed && timing.get()) {
                latencies.add(elapsed); // sent and answered inside the timed window
            }
        }

        void start() {
            threads.forEach(Thread::start);
        }

        /** Lets every caller finish the call it is in, and waits for that. */
        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(CALL_TIMEOUT.toMillis() * 2);
            }
        }
    }

    /** Sleeps {@code d} in whole seconds, advancing {@code task} by one each. */
    private static void sleep(Duration d, Progress.Task task) throws InterruptedException {
        for (long s = 0; s < d.toSeconds(); s++) {
            Thread.sleep(1_000);
            task.advance(1);
        }
    }

    private BenchRow idle(BenchContext ctx, NodeJvm dev) throws InterruptedException {
        long step = IDLE_SETTLE.toSeconds();
        long settled = 0;
        long ticks = dev.afterLoadTicks();
        while (settled < IDLE_SETTLE_MAX.toSeconds()) {
            Thread.sleep(IDLE_SETTLE.toMillis());
            settled += step;
            long now = dev.afterLoadTicks();
            // threads not readable here (no /proc): one step
            if (ticks < 0 || now < 0) {
                break;
            }
            // a thread that ended took its ticks along: not a quiet step
            boolean quiet = CpuAccount.coresBetween(ticks, now, step) < IDLE_QUIET_CORES;
            ticks = now;
            if (quiet) {
                break;
            }
        }
        CpuAccount.Probe probe = CpuAccount.start(Map.of("dev", dev.cpuByGroup()));
        Thread.sleep(IDLE_WINDOW.toMillis());
        CpuAccount.Window window = probe.stop(1);
        double devCores = window.processesUs().getOrDefault("dev", 0.0) / 1e6 / window.seconds();
        Double machine = window.machineUs();
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("timed_s", String.format(Locale.ROOT, "%.1f", window.seconds()));
        notes.put("settled_s", Long.toString(settled));
        notes.put("cores.dev", String.format(Locale.ROOT, "%.3f", devCores));
        notes.put("cores.machine", machine == null ? "n/a"
                : String.format(Locale.ROOT, "%.3f", machine / 1e6 / window.seconds()));
        window.processGroupsUs().forEach((g, us) -> notes.put("cores.dev." + g.key(),
                String.format(Locale.ROOT, "%.3f", us / 1e6 / window.seconds())));
        ctx.out().printf(Locale.ROOT, "idle dev uses %.3f of a core (machine %s) after %d s to settle; by thread "
                + "group: %s%n", devCores, notes.get("cores.machine"), settled, notes.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("cores.dev.") && Double.parseDouble(e.getValue()) >= 0.001)
                        .map(e -> e.getKey().substring("cores.dev.".length()) + " " + e.getValue()).toList());
        return new BenchRow("closed-loop", "idle", "actiongate dev with nothing to do (cores)", 0, 0, 0, null, null,
                notes);
    }

    /** A caller over Kafka: the Java client proposes and waits for the terminal receipt. */
    private static Host kafkaHost(ActionGateClient client) {
        return (callId, query) -> {
            ActionReceipt receipt = client.propose(request(callId, query), Until.TERMINAL, CALL_TIMEOUT).await();
            return receipt.state().name();
        };
    }

    public static ProposalRequest request(String callId, String query) {
        return ProposalRequest.builder()
                .action(TASK, callId)
                .taskVersion(1)
                .identity(ORG, PRINCIPAL)
                .profile(PROFILE)
                .authorizationEpoch(1)
                .tool("webhook", TOOL, TOOL, SCHEMA_HASH)
                .input("{\"query\":\"" + query + "\"}")
                .summary("Read the notes about " + query)
                .build();
    }

    /**
     * A caller over HTTP: {@code POST /v1/proposals?wait=30s&until=terminal}; an answer that is not terminal yet (a
     * node that answers the first receipt) is followed by the long poll.
     */
    private static Host httpHost(LoopbackHttp http) {
        return new Host() {
            @Override
            public String call(String callId, String query) throws Exception {
                ObjectNode body = JSON.createObjectNode();
                body.put("task_id", TASK);
                body.put("tool_call_id", callId);
                body.put("provider", "webhook");
                body.put("operation", TOOL);
                body.put("tool_name", TOOL);
                body.put("tool_schema_hash", SCHEMA_HASH);
                body.putObject("input").put("query", query);
                body.put("summary", "Read the notes about " + query);
                LoopbackHttp.Answer answer = http.post("/v1/proposals?wait=30s&until=terminal", body.toString());
                String status = status(answer);
                if (answer.status() == 200 && TERMINAL.contains(status) || answer.status() >= 300) {
                    return answer.status() >= 300 ? "HTTP " + answer.status() : status;
                }
                LoopbackHttp.Answer polled = http.get("/v1/actions/" + io.actiongate.key.ActionKey.format(TASK, callId)
                        + "?wait=30s");
                return polled.status() == 200 ? status(polled) : "HTTP " + polled.status();
            }

            @Override
            public void close() {
                http.close();
            }
        };
    }

    private static final java.util.Set<String> TERMINAL = java.util.Set.of("SUCCEEDED", "FAILED", "REJECTED",
            "DENIED", "EXPIRED", "CANCELLED", "NOT_APPLIED");

    private static String status(LoopbackHttp.Answer answer) throws IOException {
        JsonNode node = JSON.readTree(answer.body());
        JsonNode status = node.get("status");
        return status == null ? "none" : status.asText();
    }

    private static String field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no " + name + " in " + line);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
