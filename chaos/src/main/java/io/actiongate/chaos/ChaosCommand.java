package io.actiongate.chaos;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
        description = {"Dev only. Runs a broker, gate instances, two executors and a reconciler as separate JVMs "
                + "under a mixed load while a seeded schedule kills, pauses and restarts them and makes the "
                + "sandbox provider fail; then checks every output topic (read_committed) and the provider's "
                + "request log, and writes chaos-report.md/.json. Exit 0 only when the checker found nothing.",
                "The same --seed prints and injects the same fault schedule."})
public final class ChaosCommand implements Callable<Integer> {

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

    @Option(names = "--rate", defaultValue = "4",
            description = "Actions proposed per second (default ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--fault-every", defaultValue = "20s", converter = DurationConverter.class,
            description = "Mean time between two faults (default ${DEFAULT-VALUE}).")
    private Duration faultEvery;

    @Option(names = "--settle-timeout", defaultValue = "3m", converter = DurationConverter.class,
            description = "How long to wait after the load for every action to settle (default ${DEFAULT-VALUE}).")
    private Duration settleTimeout;

    @Option(names = "--child-heap", defaultValue = "256m", description = "-Xmx of every gate, executor and "
            + "reconciler JVM (default ${DEFAULT-VALUE}).")
    private String childHeap;

    @Option(names = "--results", description = "Results folder (default chaos-results/seed-N-TIMESTAMP).")
    private Path results;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        quietKafkaClients();
        if (gates < 1 || gates > 3 || partitions < 1 || rate <= 0) {
            spec.commandLine().getErr().println("--gates must be 1-3, --partitions >= 1, --rate > 0");
            return 2;
        }
        Path folder = results != null ? results : Path.of("chaos-results", "seed-" + seed + "-"
                + Instant.now().toString().replace(':', '-'));
        ChaosRun.Options options = new ChaosRun.Options(duration, seed, gates, partitions, rate, faultEvery,
                folder.toAbsolutePath(), childHeap, settleTimeout);
        return new ChaosRun(options, out).run();
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

    /** A duration in the syntax of every configuration key ({@link DurationParser}): {@code 90s}, {@code PT10M}. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return DurationParser.parse(value);
        }
    }
}
