package io.actiongate.loadtest;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.actiongate.node.JvmDefaults;
import io.actiongate.sandbox.LoopbackHttpServers;
import io.actiongate.serde.AvroSetup;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.Drivers;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.parts.ApprovalPart;
import io.actiongate.loadtest.parts.BrokerPart;
import io.actiongate.loadtest.parts.ClosedLoopPart;
import io.actiongate.loadtest.parts.MemoryPart;
import io.actiongate.loadtest.parts.OpenLoopPart;
import io.actiongate.loadtest.parts.PhysicalPart;
import io.actiongate.loadtest.parts.PostgresPart;
import io.actiongate.loadtest.parts.ScalePart;
import io.actiongate.loadtest.parts.TopologyPart;
import io.actiongate.loadtest.report.BenchReport;
import io.actiongate.loadtest.report.Goals;
import io.actiongate.loadtest.report.Invariant;
import io.actiongate.loadtest.report.RecordCounts;

/**
 * The benchmark: prints the machine, the parameters and a table of figures with ratios to a baseline measured in
 * the same run. It asserts nothing about speed; it fails only when an action did not end in the state the scenario
 * expects (then its figures would measure something else). See load-tests/README.md.
 */
public final class Benchmark {


    private Benchmark() {
    }

    public static void main(String[] args) throws Exception {
        JvmDefaults.apply(); // the in-process nodes run as under actiongate's own mains
        // the benchmark's own logging configuration, before anything creates a logger
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-bench.xml");
        }
        // the plot is drawn without a display
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        // --progress forces the bar when stderr is not a terminal (e.g. piped through tee)
        boolean forceBar = arguments.remove("--progress");
        BenchOptions options;
        try {
            options = BenchOptions.parse(arguments);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        boolean ok = run(options, System.out, new Progress(System.err, Progress.mode(options.progress(), forceBar)),
                parts());
        System.exit(ok ? 0 : 1);
    }

    /** The parts in the order they run; each runs when the options name it. */
    public static List<BenchPart> parts() {
        return List.of(new TopologyPart(), new BrokerPart(), new PhysicalPart(), new PostgresPart(), new OpenLoopPart(),
                new ClosedLoopPart(), new ApprovalPart(), new ScalePart(), new MemoryPart());
    }

    /** Runs every part {@code options} asks for, printing to {@code out}; false when an invariant failed. */
    public static boolean run(BenchOptions options, PrintStream out) throws Exception {
        return run(options, out, new Progress(System.err, Progress.mode(options.progress(), false)), parts());
    }

    /**
     * Runs those of {@code parts} that {@code options} asks for, printing to {@code out}, then writes the report
     * files into {@link BenchOptions#resultsDir()}; false when an invariant failed.
     */
    public static boolean run(BenchOptions options, PrintStream out, Progress progress, List<BenchPart> parts)
            throws Exception {
        Instant started = Instant.now();
        double loadAtStart = BenchReport.Machine.loadAverage();
        AvroSetup.install();
        out.println("actiongate benchmark, " + Instant.now());
        out.println(machine());
        out.printf(Locale.ROOT, "parameters: actions=%d rounds=%d (+1 warm-up) forks=%d broker-actions=%d "
                        + "partitions=%d provider-latency-ms=%d parts=%s%s%n",
                options.actions(), options.rounds(), options.forks(), options.brokerActions(), options.partitions(),
                options.providerLatencyMs(), String.join(",", options.parts()),
                (options.skipBroker() ? " skip-broker" : "") + (options.misroute() ? " misroute" : ""));
        out.println("sandbox provider: " + LoopbackHttpServers.NODELAY + "=" + LoopbackHttpServers.nodelay());
        if (!options.nodeSettings().isEmpty()) {
            out.println("node settings: " + options.nodeSettings());
        }
        Path stateRoot = Files.createDirectories(options.stateDir()).resolve("actiongate-bench-" + ProcessHandle
                .current().pid());
        Files.createDirectories(stateRoot);
        try (BenchContext ctx = new BenchContext(options, stateRoot, out, progress)) {
            for (BenchPart part : parts) {
                if (!options.runs(part.name())) {
                    continue;
                }
                out.println();
                out.println("Part " + part.name() + ": " + part.title());
                ctx.enter(part.name());
                ctx.add(part.run(ctx));
            }
            out.println();
            boolean ok = true;
            for (Invariant inv : ctx.invariants()) {
                if (!inv.held()) {
                    ok = false;
                    out.println("INVARIANT FAILED [" + inv.part() + "] " + inv.name() + ": " + inv.detail());
                }
            }
            out.println(ok ? "invariants: all " + ctx.invariants().size() + " held"
                    : "invariants: FAILED (the figures above describe a wrong run)");
            BenchReport report = new BenchReport(started, Instant.now(), BenchReport.Machine.now(loadAtStart),
                    parameters(options), ctx.rows(), ctx.invariants(),
                    ctx.attachment(RecordCounts.Budget.class).orElse(null));
            out.println();
            out.println("goals:");
            for (Goals.Result g : report.goals()) {
                out.printf(Locale.ROOT, "  %-12s %-58s %-12s %s%n", g.status().label(), g.goal(), g.target(),
                        g.detail());
            }
            writeReport(report, options.resultsDir(), out);
            return ok;
        } finally {
            Drivers.deleteQuietly(stateRoot);
        }
    }

    private static void writeReport(BenchReport report, Path dir, PrintStream out) {
        try {
            List<Path> files = report.write(dir);
            out.println("report: " + String.join(", ", files.stream().map(Path::toString).toList()));
        } catch (IOException | RuntimeException | LinkageError | java.awt.AWTError e) {
            // the figures are printed above; a missing file (e.g. no fonts for the plot) does not make them wrong
            out.println("report: not (fully) written to " + dir + ": " + e);
        }
    }

    /** The run's configuration as the report lists it. */
    public static Map<String, Object> parameters(BenchOptions o) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("parts", List.copyOf(o.parts()));
        p.put("actions", o.actions());
        p.put("rounds", o.rounds());
        p.put("forks", o.forks());
        p.put("broker_actions", o.brokerActions());
        p.put("partitions", o.partitions());
        p.put("provider_latency_ms", o.providerLatencyMs());
        p.put("misroute", o.misroute());
        p.put("memory_actions", o.memoryActions());
        p.put("scale_partitions", o.scalePartitions());
        p.put("open_loop_percents", o.openLoopPercents());
        p.put("node_settings", new TreeMap<>(o.nodeSettings()));
        p.put("commit_interval_ms", Integer.parseInt(BrokerRuns.COMMIT_INTERVAL_MS));
        p.put("processing_guarantee", "exactly_once_v2");
        p.put("producer", "acks=all, enable.idempotence=true, linger.ms=5");
        p.put(LoopbackHttpServers.NODELAY, LoopbackHttpServers.nodelay());
        return p;
    }

    public static String machine() {
        Runtime rt = Runtime.getRuntime();
        return String.format(Locale.ROOT, "machine: %d cores, %s %s (%s), max heap %d MiB, GC %s, os %s %s, load avg %.2f",
                rt.availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.version"),
                System.getProperty("java.vendor"), rt.maxMemory() / (1024 * 1024),
                String.join("+", ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName())
                        .toList()),
                System.getProperty("os.name"), System.getProperty("os.arch"),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
