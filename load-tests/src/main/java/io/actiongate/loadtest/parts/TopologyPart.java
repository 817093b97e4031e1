package io.actiongate.loadtest.parts;

import java.util.List;
import java.util.Map;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.BenchPart;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchRow;

/**
 * Part "topology": rows a–d ({@link TopologyBenchmarks}, run through JMH by {@link TopologyBench}), each against
 * the pass-through baseline (a).
 */
public final class TopologyPart implements BenchPart {

    @Override
    public String name() {
        return "topology";
    }

    @Override
    public String title() {
        return "topology cost per action (TopologyTestDriver, no broker, one thread; JMH, median of rounds)";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) {
        BenchOptions o = ctx.options();
        TopologyBench bench = new TopologyBench(o.actions(), o.rounds(), o.forks(), ctx.stateRoot());
        List<TopologyBench.Row> rows;
        Progress.Task task = ctx.progress().start("topology rows a-d (JMH rounds)", bench.totalRounds());
        try (task) {
            rows = bench.run(() -> task.advance(1));
        }
        PartTables.topology(rows, ctx.out());
        for (TopologyBench.Row r : rows) {
            ctx.invariant("row " + r.id() + ": every action in the expected state", r.verified() == r.actions(),
                    r.verified() + "/" + r.actions());
        }
        return rows.stream().map(r -> new BenchRow(name(), r.id(), r.what(), r.actions(), r.verified(),
                r.actionsPerSecond(), null, r.id().equals("a") ? null : "a",
                Map.of("us_per_action", String.format(java.util.Locale.ROOT, "%.1f", r.median() / 1e3 / r.actions()),
                        "rounds_ms", r.nanos().stream().map(n -> String.valueOf(n / 1_000_000)).toList().toString())))
                .toList();
    }
}
