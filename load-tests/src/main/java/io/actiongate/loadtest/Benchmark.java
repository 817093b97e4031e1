package io.actiongate.loadtest;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.actiongate.serde.AvroSetup;

/**
 * The benchmark: prints the machine, the parameters and a table of figures with ratios to a baseline measured in
 * the same run. It asserts nothing about speed; it fails only when an action did not end in the state the scenario
 * expects (then its figures would measure something else). See load-tests/README.md.
 */
public final class Benchmark {

    static final String HTTPSERVER_NODELAY = "sun.net.httpserver.nodelay";

    private Benchmark() {
    }

    public static void main(String[] args) throws Exception {
        // the benchmark's own logging configuration, before anything creates a logger
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-bench.xml");
        }
        // The sandbox provider is the JDK's built-in HTTP server, which leaves Nagle's algorithm on: every response
        // then waits on the client's delayed ACK, a cost of the stand-in, not of actiongate or of a real provider.
        if (System.getProperty(HTTPSERVER_NODELAY) == null) {
            System.setProperty(HTTPSERVER_NODELAY, "true");
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(Arrays.asList(args));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        boolean ok = run(options, System.out);
        System.exit(ok ? 0 : 1);
    }

    /** The parts in the order they run; each runs when the options name it. */
    static List<BenchPart> parts() {
        return List.of(new TopologyPart(), new BrokerPart(), new ScalePart(), new MemoryPart());
    }

    /** Runs every part {@code options} asks for, printing to {@code out}; false when an invariant failed. */
    static boolean run(BenchOptions options, PrintStream out) throws Exception {
        AvroSetup.install();
        out.println("actiongate benchmark, " + Instant.now());
        out.println(machine());
        out.printf(Locale.ROOT, "parameters: actions=%d rounds=%d (+1 warm-up) broker-actions=%d partitions=%d "
                        + "provider-latency-ms=%d parts=%s%s%n",
                options.actions(), options.rounds(), options.brokerActions(), options.partitions(),
                options.providerLatencyMs(), String.join(",", options.parts()),
                (options.skipBroker() ? " skip-broker" : "") + (options.misroute() ? " misroute" : ""));
        out.println("sandbox provider: " + HTTPSERVER_NODELAY + "=" + System.getProperty(HTTPSERVER_NODELAY, "false"));
        if (!options.nodeSettings().isEmpty()) {
            out.println("node settings: " + options.nodeSettings());
        }
        Path stateRoot = Files.createDirectories(options.stateDir()).resolve("actiongate-bench-" + ProcessHandle
                .current().pid());
        Files.createDirectories(stateRoot);
        Progress progress = new Progress(System.err, options.progress());
        try (BenchContext ctx = new BenchContext(options, stateRoot, out, progress)) {
            for (BenchPart part : parts()) {
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
            for (BenchContext.Invariant inv : ctx.invariants()) {
                if (!inv.held()) {
                    ok = false;
                    out.println("INVARIANT FAILED [" + inv.part() + "] " + inv.name() + ": " + inv.detail());
                }
            }
            out.println(ok ? "invariants: all " + ctx.invariants().size() + " held"
                    : "invariants: FAILED (the figures above describe a wrong run)");
            return ok;
        } finally {
            Drivers.deleteQuietly(stateRoot);
        }
    }

    static String machine() {
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
