package io.actiongate.loadtest.report;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The printed table of the latency rows (parts "open-loop" and "approval"): one line per row, then its notes. */
public final class LatencyTable {

    private LatencyTable() {
    }

    public static void print(List<BenchRow> rows, PrintStream out) {
        out.printf(Locale.ROOT, "%-6s %-70s %10s %9s %9s %9s %9s %9s%n", "row", "what", "actions/s", "p50 ms",
                "p95 ms", "p99 ms", "max ms", "ok");
        for (BenchRow r : rows) {
            BenchRow.Latency l = r.latency();
            out.printf(Locale.ROOT, "%-6s %-70s %10.0f %9s %9s %9s %9s %9s%n", r.id(), r.what(), r.throughput(),
                    ms(l == null ? Double.NaN : l.p50()), ms(l == null ? Double.NaN : l.p95()),
                    ms(l == null ? Double.NaN : l.p99()), ms(l == null ? Double.NaN : l.max()),
                    r.completed() + "/" + r.actions());
        }
        for (BenchRow r : rows) {
            StringBuilder line = new StringBuilder("  ").append(r.id()).append(':');
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(r.notes()).entrySet()) {
                line.append(' ').append(e.getKey()).append('=').append(e.getValue());
            }
            out.println(line);
        }
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }
}
