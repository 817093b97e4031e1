package io.actiongate.loadtest;

import java.util.List;
import java.util.Map;

/**
 * Part "broker": rows e (EOS pass-through baseline) and f (actiongate's read-only path end to end) from
 * {@link BrokerBench}, on the run's broker.
 */
final class BrokerPart implements BenchPart {

    @Override
    public String name() {
        return "broker";
    }

    @Override
    public String title() {
        return "end to end on the embedded broker (EOS v2)";
    }

    @Override
    public List<BenchRow> run(BenchContext ctx) throws Exception {
        BenchOptions o = ctx.options();
        BrokerBench.Result r;
        try (Progress.Task task = ctx.progress().start("rows e and f", 0)) {
            r = new BrokerBench(o.brokerActions(), o.partitions(), ctx.stateRoot(), o.nodeSettings(), o.misroute())
                    .providerLatency(java.time.Duration.ofMillis(o.providerLatencyMs())).run(ctx.bootstrap());
        }
        Report.broker(r, ctx.out());
        ctx.invariant("row e: every action through the pass-through", r.baseline().completed() == r.actions(),
                r.baseline().completed() + "/" + r.actions());
        ctx.invariant("row f: every action SUCCEEDED", r.gate().completed() == r.actions(),
                r.gate().completed() + "/" + r.actions());
        ctx.invariant("row f: one provider request per action (none lost, none doubled)",
                r.providerRequests() == r.actions() + r.warmup(),
                r.providerRequests() + " requests for " + (r.actions() + r.warmup()) + " actions, warm-up included");
        return List.of(
                new BenchRow(name(), "e", "baseline: produce -> EOS Streams pass-through -> consume", r.actions(),
                        r.baseline().completed(), r.baseline().throughput(),
                        BenchRow.Latency.ofSortedNanos(r.baseline().sortedLatencyNanos()), null,
                        Map.of("partitions", String.valueOf(r.partitions()))),
                new BenchRow(name(), "f", "actiongate read-only: produce -> gate -> executor -> webhook -> SUCCEEDED",
                        r.actions(), r.gate().completed(), r.gate().throughput(),
                        BenchRow.Latency.ofSortedNanos(r.gate().sortedLatencyNanos()), "e",
                        Map.of("partitions", String.valueOf(r.partitions()), "misrouted",
                                String.valueOf(r.misrouted()), "provider_requests",
                                String.valueOf(r.providerRequests()))));
    }
}
