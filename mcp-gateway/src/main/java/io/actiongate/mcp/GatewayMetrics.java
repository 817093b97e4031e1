package io.actiongate.mcp;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The gateway's metrics, in the registry its {@code /metrics} serves: calls by tool and outcome, and the latency of
 * upstream calls by upstream and result. Labels carry tool and upstream names and outcome words only, never input.
 */
final class GatewayMetrics {

    private final PrometheusRegistry registry;
    private final Counter calls;
    private final Histogram upstreamLatency;

    GatewayMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        calls = Counter.builder().name("actiongate_mcp_gateway_calls")
                .help("tools/call requests by tool and outcome (read, read_refused, read_error, read_failed, or the "
                        + "action's state after a proposal: waiting_approval, succeeded, rejected, conflict, ...)")
                .labelNames("tool", "outcome").register(registry);
        upstreamLatency = Histogram.builder().name("actiongate_mcp_gateway_upstream_latency")
                .help("Time of a call to an upstream MCP server, by upstream and whether it answered")
                .unit(Unit.SECONDS).labelNames("upstream", "answered").register(registry);
    }

    PrometheusRegistry registry() {
        return registry;
    }

    void call(String tool, String outcome) {
        calls.labelValues(tool, outcome).inc();
    }

    void upstream(String upstream, long startedNanos, boolean answered) {
        upstreamLatency.labelValues(upstream, Boolean.toString(answered))
                .observe((System.nanoTime() - startedNanos) / 1e9);
    }

    /** The count of calls of {@code tool} with {@code outcome}, for tests. */
    long calls(String tool, String outcome) {
        return (long) calls.labelValues(tool, outcome).get();
    }
}
