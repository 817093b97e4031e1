package io.actiongate.loadtest.harness;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark's parameters; see load-tests/README.md for each option. Parts are named (see {@link #PARTS}) and
 * chosen with {@code --only a,b} or {@code --skip a,b}; {@code --skip-broker} is {@code --skip} of every part that
 * needs the broker.
 *
 * @param actions          part "topology": actions per round
 * @param rounds           part "topology": measured rounds after one warm-up
 * @param brokerActions    actions per side of the broker parts (burst size of rows e and f)
 * @param partitions       partitions of every topic in the broker parts (the scale part varies it itself)
 * @param parts            the parts to run, in {@link #PARTS} order
 * @param stateDir         where stores, the broker's data and PostgreSQL's data directory go (deleted at the end)
 * @param nodeSettings     {@code --set key=value}: settings of the actiongate node over the benchmark's own
 * @param misroute         row f produces every proposal away from its key's murmur2 home partition
 * @param providerLatencyMs the loopback provider's added latency per request, in milliseconds
 * @param resultsDir       where bench-report.md, bench-report.json and the plot go
 * @param memoryActions    part "memory": actions retained in the gate's stores before heap and RSS are read
 * @param scalePartitions  part "scale": the partition counts of its rows
 * @param openLoopPercents part "open-loop": arrival rates as percentages of the measured saturation (row f)
 * @param progress         draw a progress line on stderr while running
 * @param pgWorkers        part "postgres": the worker counts of its sweep (each at both durability settings)
 * @param rowSeconds       rows e, f, sk and pg: seconds timed per row, {@code brokerActions} in flight at a time
 *                         (0: one burst of {@code brokerActions} produced at once, as the first benchmark ran)
 * @param decisions        rows dv and dvh: the burst of signed decisions (a burst of 2,000 measured mostly its own
 *                         start: JIT, GC and the first commits)
 * @param openLoopBase     part "open-loop": the actions/s its percentages are taken of, instead of row f's
 *                         throughput in the same run (0): to compare settings at the same offered load
 * @param closedLoopHosts  part "closed-loop": the numbers of hosts waiting for each answer, one row per transport
 * @param closedLoopSeconds part "closed-loop": seconds timed per row (after half as many of warm-up)
 * @param closedLoopProviderLatencyMs part "closed-loop": the provider's added latency per request
 * @param devJavaOpts      part "closed-loop": dev's JVM options (null: ./actiongate's defaults)
 * @param closedLoopTransports part "closed-loop": which hosts run, {@code kafka} and/or {@code http}
 * @param closedLoopJitSeconds part "closed-loop": the longest the untimed round that warms dev's JIT may run per
 *                         transport while dev's compilers are still busy (it runs at least one row's length)
 * @param forks            part "topology": JVMs (JMH forks) per row; 0 runs its rows in the benchmark's own JVM
 */
public record BenchOptions(int actions, int rounds, int brokerActions, int partitions, Set<String> parts, Path stateDir,
                    Map<String, String> nodeSettings, boolean misroute, int providerLatencyMs, Path resultsDir,
                    int memoryActions, List<Integer> scalePartitions, List<Integer> openLoopPercents,
                    boolean progress, int rowSeconds, List<Integer> pgWorkers, int decisions, int openLoopBase,
                    List<Integer> closedLoopHosts, int closedLoopSeconds, int closedLoopProviderLatencyMs,
                    String devJavaOpts, Set<String> closedLoopTransports, int closedLoopJitSeconds,
                    int forks) {

    /** Every part, in the order they run. */
    public static final List<String> PARTS = List.of("topology", "broker", "physical", "postgres", "open-loop",
            "closed-loop", "approval", "scale", "memory");
    /** Parts that need no broker. */
    public static final Set<String> WITHOUT_BROKER = Set.of("topology");

    public static final String USAGE =
            "usage: Benchmark [--actions N] [--rounds R] [--broker-actions M] [--partitions P] "
            + "[--only PART,...] [--skip PART,...] [--skip-broker] [--state-dir DIR] [--results DIR] "
            + "[--provider-latency-ms MS] [--memory-actions N] [--scale-partitions P,...] [--open-loop PCT,...] "
            + "[--open-loop-base R] [--row-seconds S] [--pg-workers N,...] [--decisions D] [--closed-loop C,...] "
            + "[--closed-loop-seconds S] [--closed-loop-provider-latency-ms MS] [--dev-java-opts 'OPTS'] "
            + "[--closed-loop-transports kafka,http] [--closed-loop-jit-seconds S] [--forks F] "
            + "[--no-progress | --progress] "
            + "[--set key=value]... [--misroute]\n  parts: " + String.join(", ", PARTS);

    public BenchOptions {
        positive("--actions", actions);
        positive("--rounds", rounds);
        positive("--broker-actions", brokerActions);
        positive("--partitions", partitions);
        positive("--memory-actions", memoryActions);
        positive("--decisions", decisions);
        positive("--closed-loop-seconds", closedLoopSeconds);
        if (closedLoopJitSeconds < 0) {
            throw new IllegalArgumentException("--closed-loop-jit-seconds must be 0 or more, got "
                    + closedLoopJitSeconds);
        }
        if (forks < 0) {
            throw new IllegalArgumentException("--forks must be 0 (no fork) or more, got " + forks);
        }
        if (closedLoopProviderLatencyMs < 0) {
            throw new IllegalArgumentException("--closed-loop-provider-latency-ms must be 0 or more, got "
                    + closedLoopProviderLatencyMs);
        }
        closedLoopHosts.forEach(h -> positive("--closed-loop", h));
        closedLoopTransports.forEach(t -> {
            if (!t.equals("kafka") && !t.equals("http")) {
                throw new IllegalArgumentException("--closed-loop-transports takes kafka and/or http, got " + t);
            }
        });
        closedLoopTransports = Set.copyOf(closedLoopTransports);
        closedLoopHosts = List.copyOf(closedLoopHosts);
        if (openLoopBase < 0) {
            throw new IllegalArgumentException("--open-loop-base must be 0 (row f's throughput) or more, got "
                    + openLoopBase);
        }
        if (rowSeconds < 0) {
            throw new IllegalArgumentException("--row-seconds must be 0 or more, got " + rowSeconds);
        }
        if (providerLatencyMs < 0) {
            throw new IllegalArgumentException("--provider-latency-ms must be 0 or more, got " + providerLatencyMs);
        }
        scalePartitions.forEach(p -> positive("--scale-partitions", p));
        openLoopPercents.forEach(p -> {
            if (p < 1 || p > 100) {
                throw new IllegalArgumentException("--open-loop takes percentages 1..100, got " + p);
            }
        });
        Set<String> ordered = new LinkedHashSet<>();
        for (String part : PARTS) {
            if (parts.contains(part)) {
                ordered.add(part);
            }
        }
        for (String part : parts) {
            if (!PARTS.contains(part)) {
                throw new IllegalArgumentException("unknown part " + part + "\n" + USAGE);
            }
        }
        parts = Collections.unmodifiableSet(ordered);
        nodeSettings = Map.copyOf(nodeSettings);
        scalePartitions = List.copyOf(scalePartitions);
        openLoopPercents = List.copyOf(openLoopPercents);
        pgWorkers.forEach(w -> positive("--pg-workers", w));
        pgWorkers = List.copyOf(pgWorkers);
    }

    /** Part "topology" only, as the smoke tests use it; the report goes to {@code stateDir/bench-results}. */
    public BenchOptions(int actions, int rounds, int brokerActions, int partitions, boolean skipBroker, Path stateDir) {
        this(new Builder().actions(actions).rounds(rounds).brokerActions(brokerActions).partitions(partitions)
                .skipBroker(skipBroker).stateDir(stateDir).resultsDir(stateDir.resolve("bench-results")).progress(false)
                .build());
    }

    private BenchOptions(BenchOptions o) {
        this(o.actions, o.rounds, o.brokerActions, o.partitions, o.parts, o.stateDir, o.nodeSettings, o.misroute,
                o.providerLatencyMs, o.resultsDir, o.memoryActions, o.scalePartitions, o.openLoopPercents,
                o.progress, o.rowSeconds, o.pgWorkers, o.decisions, o.openLoopBase, o.closedLoopHosts,
                o.closedLoopSeconds, o.closedLoopProviderLatencyMs, o.devJavaOpts, o.closedLoopTransports,
                o.closedLoopJitSeconds, o.forks);
    }

    public static BenchOptions defaults() {
        return new Builder().build();
    }

    public boolean runs(String part) {
        return parts.contains(part);
    }

    /** True when no part that needs the broker runs. */
    public boolean skipBroker() {
        return parts.stream().allMatch(WITHOUT_BROKER::contains);
    }

    public static BenchOptions parse(List<String> args) {
        Builder b = new Builder();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--skip-broker" -> b.skipBroker(true);
                case "--actions" -> b.actions(number(args, ++i, arg));
                case "--rounds" -> b.rounds(number(args, ++i, arg));
                case "--forks" -> b.forks(number(args, ++i, arg));
                case "--broker-actions" -> b.brokerActions(number(args, ++i, arg));
                case "--partitions" -> b.partitions(number(args, ++i, arg));
                case "--state-dir" -> b.stateDir(Path.of(value(args, ++i, arg)));
                case "--results" -> b.resultsDir(Path.of(value(args, ++i, arg)));
                case "--provider-latency-ms" -> b.providerLatencyMs = number(args, ++i, arg);
                case "--memory-actions" -> b.memoryActions = number(args, ++i, arg);
                case "--row-seconds" -> b.rowSeconds = number(args, ++i, arg);
                case "--pg-workers" -> b.pgWorkers = numbers(args, ++i, arg);
                case "--decisions" -> b.decisions = number(args, ++i, arg);
                case "--scale-partitions" -> b.scalePartitions = numbers(args, ++i, arg);
                case "--open-loop" -> b.openLoopPercents = numbers(args, ++i, arg);
                case "--open-loop-base" -> b.openLoopBase = number(args, ++i, arg);
                case "--closed-loop" -> b.closedLoopHosts = numbers(args, ++i, arg);
                case "--closed-loop-seconds" -> b.closedLoopSeconds = number(args, ++i, arg);
                case "--closed-loop-provider-latency-ms" -> b.closedLoopProviderLatencyMs = number(args, ++i, arg);
                case "--dev-java-opts" -> b.devJavaOpts = value(args, ++i, arg);
                case "--closed-loop-transports" -> b.closedLoopTransports = new LinkedHashSet<>(
                        List.of(value(args, ++i, arg).split(",")));
                case "--closed-loop-jit-seconds" -> b.closedLoopJitSeconds = number(args, ++i, arg);
                case "--only" -> b.parts = new LinkedHashSet<>(names(args, ++i, arg));
                case "--skip" -> b.parts.removeAll(names(args, ++i, arg));
                case "--no-progress" -> b.progress(false);
                case "--misroute" -> b.misroute = true;
                case "--set" -> {
                    String pair = value(args, ++i, arg);
                    int eq = pair.indexOf('=');
                    if (eq < 1) {
                        throw new IllegalArgumentException("--set needs key=value, got " + pair + "\n" + USAGE);
                    }
                    b.nodeSettings.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
                default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
            }
        }
        return b.build();
    }

    /** Mutable parameters on the way to a {@link BenchOptions}; starts at the defaults. */
    public static final class Builder {
        public int actions = 20_000;
        public int rounds = 5;
        public int brokerActions = 2_000;
        public int partitions = 12;
        public Set<String> parts = new LinkedHashSet<>(PARTS);
        public Path stateDir = Path.of(System.getProperty("java.io.tmpdir"));
        public Map<String, String> nodeSettings = new LinkedHashMap<>();
        public boolean misroute;
        public int providerLatencyMs = 2;
        public Path resultsDir = Path.of("bench-results");
        public int memoryActions = 1_000_000;
        public List<Integer> scalePartitions = List.of(6, 12, 24);
        public List<Integer> openLoopPercents = List.of(25, 50, 75);
        public boolean progress = true;
        public int rowSeconds = 10;
        public List<Integer> pgWorkers = List.of(8, 32, 64);
        public int decisions = 65_000;
        public int openLoopBase;
        public List<Integer> closedLoopHosts = List.of(1, 16, 64);
        public int closedLoopSeconds = 20;
        public int closedLoopProviderLatencyMs;
        public String devJavaOpts;
        public Set<String> closedLoopTransports = new LinkedHashSet<>(List.of("kafka", "http"));
        public int closedLoopJitSeconds = 180;
        public int forks = 1;

        public Builder actions(int v) {
            actions = v;
            return this;
        }

        public Builder rounds(int v) {
            rounds = v;
            return this;
        }

        public Builder forks(int v) {
            forks = v;
            return this;
        }

        public Builder brokerActions(int v) {
            brokerActions = v;
            return this;
        }

        public Builder partitions(int v) {
            partitions = v;
            return this;
        }

        public Builder skipBroker(boolean skip) {
            if (skip) {
                parts.retainAll(WITHOUT_BROKER);
            }
            return this;
        }

        public Builder only(String... names) {
            parts = new LinkedHashSet<>(List.of(names));
            return this;
        }

        public Builder stateDir(Path v) {
            stateDir = v;
            return this;
        }

        public Builder resultsDir(Path v) {
            resultsDir = v;
            return this;
        }

        public Builder rowSeconds(int v) {
            rowSeconds = v;
            return this;
        }

        public Builder pgWorkers(Integer... v) {
            pgWorkers = List.of(v);
            return this;
        }

        public Builder progress(boolean v) {
            progress = v;
            return this;
        }

        public BenchOptions build() {
            return new BenchOptions(actions, rounds, brokerActions, partitions, parts, stateDir, nodeSettings,
                    misroute, providerLatencyMs, resultsDir, memoryActions, scalePartitions, openLoopPercents,
                    progress, rowSeconds, pgWorkers, decisions, openLoopBase, closedLoopHosts, closedLoopSeconds,
                    closedLoopProviderLatencyMs, devJavaOpts, closedLoopTransports, closedLoopJitSeconds, forks);
        }
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args.get(i);
    }

    private static List<String> names(List<String> args, int i, String option) {
        List<String> out = new ArrayList<>();
        for (String name : value(args, i, option).split(",")) {
            String n = name.strip();
            if (!PARTS.contains(n)) {
                throw new IllegalArgumentException(option + ": unknown part " + n + "\n" + USAGE);
            }
            out.add(n);
        }
        return out;
    }

    private static List<Integer> numbers(List<String> args, int i, String option) {
        List<Integer> out = new ArrayList<>();
        for (String v : value(args, i, option).split(",")) {
            out.add(parseNumber(v.strip(), option));
        }
        return out;
    }

    private static int number(List<String> args, int i, String option) {
        return parseNumber(value(args, i, option), option);
    }

    private static int parseNumber(String v, String option) {
        try {
            return Integer.parseInt(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number, got " + v + "\n" + USAGE, e);
        }
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, got " + value);
        }
    }
}
