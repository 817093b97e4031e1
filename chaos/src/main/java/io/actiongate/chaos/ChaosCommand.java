package io.actiongate.chaos;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.actiongate.config.DurationParser;

/** {@code actiongate chaos}: the dev kit's fault-injection run with its independent checker. */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {"Dev only. Runs a broker (--cluster: three), gate instances, two executors and a reconciler "
                + "as separate JVMs "
                + "under a mixed load while a seeded schedule kills, pauses and restarts them and makes the "
                + "sandbox provider fail; then checks every output topic (read_committed) and the provider's "
                + "request log, and writes chaos-report.md/.json. Exit 0 only when the checker found nothing.",
                "The same --seed prints and injects the same fault schedule."})
public final class ChaosCommand implements Callable<Integer> {

    /** The arrival rate when neither --rate nor --saturation is given. */
    static final double DEFAULT_RATE = 4;
    /** The share of the measured saturation that the default rate runs at (at least half). */
    static final double SATURATION_SHARE = 0.5;

    @Spec
    private CommandSpec spec;

    @Option(names = "--duration", defaultValue = "2m", converter = DurationConverter.class,
            description = "How long the load and the faults run, e.g. 90s, 10m (default ${DEFAULT-VALUE}).")
    private Duration duration;

    @Option(names = "--seed", defaultValue = "1",
            description = "Seed of the fault schedule and the load mix (default ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--gates", defaultValue = "2",
            description = "Gate instances at the start, 1-3 (default ${DEFAULT-VALUE}).")
    private int gates;

    @Option(names = "--partitions", defaultValue = "4",
            description = "Partitions per topic (default ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(names = "--rate", description = "Actions proposed per second (default: half of --saturation when "
            + "given, else " + DEFAULT_RATE + ").")
    private Double rate;

    @Option(names = "--saturation", description = "The saturation in actions/s measured for the same topology on "
            + "the same machine (docs/chaos.md says how); the default --rate is then half of it, and both are "
            + "printed.")
    private Double saturation;

    @Option(names = "--measure-saturation", description = "Before the storm, measure the saturation of this "
            + "topology on this machine with the faults off (30 s steps at doubling rates from 5 actions/s); the "
            + "default --rate is then half of it, and both are printed and reported.")
    private boolean measureSaturation;

    @Option(names = "--cluster", description = "Run a three-node KRaft cluster (three broker+controller JVMs), "
            + "replication factor 3, min.insync.replicas 2, unclean leader election off, with the cluster faults "
            + "in the schedule. Default: one broker (CI).")
    private boolean cluster;

    @Option(names = "--network-namespaces", description = "With --cluster: each node in a Linux network namespace "
            + "of its own, joined by veth pairs and a bridge the run makes (root only; removed at the end), so the "
            + "schedule can cut a node off from its peers while clients still reach it, or off from everyone.")
    private boolean networkNamespaces;

    @Option(names = "--fault-every", defaultValue = "20s", converter = DurationConverter.class,
            description = "Mean time between two faults (default ${DEFAULT-VALUE}).")
    private Duration faultEvery;

    @Option(names = "--settle-timeout", defaultValue = "3m", converter = DurationConverter.class,
            description = "How long to wait after the load for every action to settle (default ${DEFAULT-VALUE}).")
    private Duration settleTimeout;

    @Option(names = "--child-heap", defaultValue = "256m", description = "-Xmx of every gate, executor and "
            + "reconciler JVM (default ${DEFAULT-VALUE}).")
    private String childHeap;

    @Option(names = "--gate-clock-skew", defaultValue = "0s", converter = SignedDurationConverter.class,
            description = "Shift the wall clock of gate-1 by this many whole seconds, e.g. +3s or -3s, with "
                    + "libfaketime (apt-get install libfaketime); docs/chaos.md says what skew each deadline "
                    + "tolerates (default ${DEFAULT-VALUE}: none).")
    private Duration gateClockSkew;

    @Option(names = "--results", description = "Results folder (default chaos-results/seed-N-TIMESTAMP).")
    private Path results;

    @Option(names = "--upgrade-from", arity = "0..1", fallbackValue = "", paramLabel = "REF",
            description = "A rolling upgrade instead of faults: every role starts as the release built from git ref "
                    + "REF of this checkout (default: the last release tag, else " + ReleaseBuild.FIRST_REF
                    + ") and is replaced by this build one instance at a time under load, with actions in flight "
                    + "in every state (docs/chaos.md, \"Rolling upgrade\"). Use with --cluster.")
    private String upgradeFrom;

    @Option(names = "--release-cache", paramLabel = "DIR", description = "Where --upgrade-from keeps the jars it "
            + "builds, one folder per commit (default ~/.cache/actiongate/releases).")
    private Path releaseCache;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        quietKafkaClients();
        if (gates < 1 || gates > 3 || partitions < 1 || (rate != null && rate <= 0)
                || (saturation != null && saturation <= 0)) {
            spec.commandLine().getErr().println("--gates must be 1-3, --partitions >= 1, --rate and --saturation "
                    + "> 0");
            return 2;
        }
        if (networkNamespaces && !cluster) {
            spec.commandLine().getErr().println("--network-namespaces needs --cluster");
            return 2;
        }
        if (networkNamespaces) {
            String why = NetworkNamespaces.unavailable();
            if (why != null) {
                spec.commandLine().getErr().println("--network-namespaces: cannot make network namespaces here ("
                        + why + "); run as root with iproute2");
                return 2;
            }
        }
        if (!gateClockSkew.isZero()) {
            try {
                ClockSkew.environment(gateClockSkew, ClockSkew.library(ClockSkew.LIBRARIES));
            } catch (RuntimeException e) {
                spec.commandLine().getErr().println(e.getMessage());
                return 2;
            }
        }
        double actionsPerSecond;
        if (measureSaturation && saturation != null) {
            spec.commandLine().getErr().println("--measure-saturation and --saturation exclude each other");
            return 2;
        } else if (measureSaturation) {
            // NaN: half of what the run measures, unless --rate says otherwise
            actionsPerSecond = rate != null ? rate : Double.NaN;
            out.println("arrival rate: " + (rate != null ? rate + " actions/s" : "half of the saturation")
                    + " measured before the storm");
        } else {
            actionsPerSecond = arrivalRate(rate, saturation);
            out.println(describeRate(actionsPerSecond, saturation));
        }
        if (upgradeFrom != null && measureSaturation) {
            spec.commandLine().getErr().println("--upgrade-from runs at --rate (or half of --saturation): "
                    + "--measure-saturation does not go with it");
            return 2;
        }
        Path folder = results != null ? results : Path.of("chaos-results", (upgradeFrom != null ? "upgrade-" : "")
                + "seed-" + seed + "-" + Instant.now().toString().replace(':', '-'));
        ChaosRun.Options options = new ChaosRun.Options(duration, seed, gates, partitions, actionsPerSecond,
                faultEvery, folder.toAbsolutePath(), childHeap, settleTimeout, cluster, gateClockSkew,
                measureSaturation, networkNamespaces);
        if (upgradeFrom != null) {
            ReleaseBuild.Built previous;
            try {
                Path repository = ReleaseBuild.repository();
                String ref = upgradeFrom.isBlank() ? ReleaseBuild.defaultRef(repository) : upgradeFrom;
                Path cache = releaseCache != null ? releaseCache
                        : Path.of(System.getProperty("user.home"), ".cache", "actiongate", "releases");
                previous = ReleaseBuild.build(repository, ref, cache, out);
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println(e.getMessage());
                return 2;
            }
            options = options.upgradingFrom(previous);
        }
        return new ChaosRun(options, out).run();
    }

    /** {@code --rate} when given, else {@link #SATURATION_SHARE} of {@code --saturation}, else the default. */
    static double arrivalRate(Double rate, Double saturation) {
        if (rate != null) {
            return rate;
        }
        return saturation != null ? saturation * SATURATION_SHARE : DEFAULT_RATE;
    }

    /** The line the run prints first: the configured rate and, when known, the saturation and the share. */
    static String describeRate(double rate, Double saturation) {
        if (saturation == null) {
            return String.format(Locale.ROOT, "arrival rate: %.1f actions/s (saturation not given: --saturation "
                    + "N, measured as docs/chaos.md describes)", rate);
        }
        return String.format(Locale.ROOT, "arrival rate: %.1f actions/s, measured saturation %.1f actions/s "
                + "(%.0f %%)", rate, saturation, 100 * rate / saturation);
    }

    /**
     * The load's producers and consumers ride out every broker restart; their reconnect warnings would bury the
     * fault and checker lines. Errors still show; the children log to their own files.
     */
    private static void quietKafkaClients() {
        for (String name : new String[] {"org.apache.kafka", "io.actiongate.sandbox"}) {
            if (LoggerFactory.getLogger(name) instanceof Logger logger) {
                logger.setLevel(Level.ERROR);
            }
        }
    }

    /** A {@link DurationConverter} duration with an optional sign: {@code +3s}, {@code -3s}. */
    public static final class SignedDurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim();
            if (v.startsWith("-")) {
                return new DurationConverter().convert(v.substring(1)).negated();
            }
            return new DurationConverter().convert(v.startsWith("+") ? v.substring(1) : v);
        }
    }

    /** A duration in the syntax of every configuration key ({@link DurationParser}): {@code 90s}, {@code PT10M}. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return DurationParser.parse(value);
        }
    }
}
