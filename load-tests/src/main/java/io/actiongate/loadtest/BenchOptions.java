package io.actiongate.loadtest;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's parameters: {@code --actions N} (part 1, default 20000), {@code --rounds R} (default 5),
 * {@code --broker-actions M} (part 2, default 2000), {@code --partitions P} (part 2 topics, default 12),
 * {@code --skip-broker}, {@code --state-dir DIR} (default the JVM's temporary directory), and any number of
 * {@code --set key=value}: a setting of the actiongate node in part 2 (e.g. {@code executor.dispatch.threads=16}),
 * applied over the benchmark's own, to compare settings by their ratio to the same baseline; {@code --misroute}
 * produces every proposal of part 2's row f to a partition other than its key's murmur2 home, so each takes the
 * gate's internal hop.
 */
record BenchOptions(int actions, int rounds, int brokerActions, int partitions, boolean skipBroker, Path stateDir,
                    Map<String, String> nodeSettings, boolean misroute) {

    static final String USAGE = "usage: Benchmark [--actions N] [--rounds R] [--broker-actions M] [--partitions P] "
            + "[--skip-broker] [--state-dir DIR] [--set key=value]... [--misroute]";

    BenchOptions {
        positive("--actions", actions);
        positive("--rounds", rounds);
        positive("--broker-actions", brokerActions);
        positive("--partitions", partitions);
        nodeSettings = Map.copyOf(nodeSettings);
    }

    BenchOptions(int actions, int rounds, int brokerActions, int partitions, boolean skipBroker, Path stateDir,
                 Map<String, String> nodeSettings) {
        this(actions, rounds, brokerActions, partitions, skipBroker, stateDir, nodeSettings, false);
    }

    BenchOptions(int actions, int rounds, int brokerActions, int partitions, boolean skipBroker, Path stateDir) {
        this(actions, rounds, brokerActions, partitions, skipBroker, stateDir, Map.of());
    }

    static BenchOptions defaults() {
        return new BenchOptions(20_000, 5, 2_000, 12, false, Path.of(System.getProperty("java.io.tmpdir")));
    }

    static BenchOptions parse(List<String> args) {
        BenchOptions o = defaults();
        Map<String, String> settings = new LinkedHashMap<>();
        boolean misroute = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--skip-broker" -> o = new BenchOptions(o.actions, o.rounds, o.brokerActions, o.partitions, true,
                        o.stateDir);
                case "--actions" -> o = new BenchOptions(number(args, ++i, arg), o.rounds, o.brokerActions,
                        o.partitions, o.skipBroker, o.stateDir);
                case "--rounds" -> o = new BenchOptions(o.actions, number(args, ++i, arg), o.brokerActions,
                        o.partitions, o.skipBroker, o.stateDir);
                case "--broker-actions" -> o = new BenchOptions(o.actions, o.rounds, number(args, ++i, arg),
                        o.partitions, o.skipBroker, o.stateDir);
                case "--partitions" -> o = new BenchOptions(o.actions, o.rounds, o.brokerActions,
                        number(args, ++i, arg), o.skipBroker, o.stateDir);
                case "--state-dir" -> o = new BenchOptions(o.actions, o.rounds, o.brokerActions, o.partitions,
                        o.skipBroker, Path.of(value(args, ++i, arg)));
                case "--misroute" -> misroute = true;
                case "--set" -> {
                    String pair = value(args, ++i, arg);
                    int eq = pair.indexOf('=');
                    if (eq < 1) {
                        throw new IllegalArgumentException("--set needs key=value, got " + pair + "\n" + USAGE);
                    }
                    settings.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
                default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
            }
        }
        return new BenchOptions(o.actions, o.rounds, o.brokerActions, o.partitions, o.skipBroker, o.stateDir,
                settings, misroute);
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args.get(i);
    }

    private static int number(List<String> args, int i, String option) {
        String v = value(args, i, option);
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
