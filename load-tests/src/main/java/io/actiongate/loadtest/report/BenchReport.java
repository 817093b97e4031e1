package io.actiongate.loadtest.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The files a run leaves in {@code BenchOptions#resultsDir()}: {@value #MARKDOWN} (ratios and goal lines first, then
 * the absolute figures with the machine and configuration, the record budget and the invariants),
 * {@value #JSON} (the same, schema {@value #SCHEMA}, documented in load-tests/README.md) and {@value #PLOT}
 * ({@link BenchPlot}).
 */
public record BenchReport(Instant started, Instant finished, Machine machine, Map<String, Object> parameters,
                   List<BenchRow> rows, List<Invariant> invariants, RecordCounts.Budget budget) {

    public static final String MARKDOWN = "bench-report.md";
    public static final String JSON = "bench-report.json";
    public static final String PLOT = "bench-plot.png";
    public static final String SCHEMA = "actiongate-bench-report/1";

    public BenchReport {
        parameters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
        rows = List.copyOf(rows);
        invariants = List.copyOf(invariants);
    }

    /** The machine the run measured on; the load average is read at the start and at the end. */
    public record Machine(int cores, String jvm, String javaVersion, String javaVendor, long maxHeapMib, String gc,
                   String os, double loadAverageStart, double loadAverageEnd) {

        public static Machine now(double loadAverageStart) {
            Runtime rt = Runtime.getRuntime();
            return new Machine(rt.availableProcessors(), System.getProperty("java.vm.name"),
                    System.getProperty("java.version"), System.getProperty("java.vendor"),
                    rt.maxMemory() / (1024 * 1024), String.join("+", ManagementFactory.getGarbageCollectorMXBeans()
                    .stream().map(b -> b.getName()).toList()),
                    System.getProperty("os.name") + " " + System.getProperty("os.arch"), loadAverageStart,
                    loadAverage());
        }

        public static double loadAverage() {
            return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }

        public String describe() {
            return String.format(Locale.ROOT, "%d cores, %s %s (%s), max heap %d MiB, GC %s, %s, load average %.2f "
                    + "at the start, %.2f at the end", cores, jvm, javaVersion, javaVendor, maxHeapMib, gc, os,
                    loadAverageStart, loadAverageEnd);
        }
    }

    public boolean ok() {
        return invariants.stream().allMatch(Invariant::held);
    }

    public List<Goals.Result> goals() {
        return Goals.evaluate(rows);
    }

    /**
     * Time per action of {@code row} as a multiple of its comparison row's ({@link BenchRow#ratioTo()}), i.e. the
     * comparison's throughput divided by the row's; empty without a comparison row or a throughput.
     */
    public Optional<Double> ratio(BenchRow row) {
        if (row.ratioTo() == null) {
            return Optional.empty();
        }
        return rows.stream().filter(r -> r.id().equals(row.ratioTo())).findFirst()
                .filter(base -> base.throughput() > 0 && row.throughput() > 0)
                .map(base -> base.throughput() / row.throughput());
    }

    /** Writes the markdown, the JSON and the plot into {@code dir} (created); returns the files written. */
    public List<Path> write(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        Path md = dir.resolve(MARKDOWN);
        Files.writeString(md, markdown(), StandardCharsets.UTF_8);
        written.add(md);
        Path json = dir.resolve(JSON);
        Files.writeString(json, json(), StandardCharsets.UTF_8);
        written.add(json);
        Path png = dir.resolve(PLOT);
        BenchPlot.write(rows, png);
        written.add(png);
        return written;
    }

    public String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("# actiongate benchmark report\n\n");
        b.append(String.format(Locale.ROOT, "%s to %s. Invariants: %s.%n%n", started, finished, ok()
                ? "all " + invariants.size() + " held" : "**FAILED** (the figures describe a wrong run)"));
        b.append("Ratios compare rows of this one run on this one machine; they carry from machine to machine, the ")
                .append("absolute figures below do not.\n\n");
        b.append("## Goals\n\n| goal | target | this run | status |\n|---|---|---|---|\n");
        for (Goals.Result g : goals()) {
            b.append("| ").append(cell(g.goal())).append(" | ").append(cell(g.target())).append(" | ")
                    .append(cell(g.detail()))
                    .append(" | ").append(g.status() == Goals.Status.MET ? "MET"
                            : g.status() == Goals.Status.NOT_MET ? "**NOT MET**" : "not measured").append(" |\n");
        }
        b.append("\n## Ratios\n\nTime per action as a multiple of the compared row's (its throughput divided by ")
                .append("this row's): 1.00 costs the same, 10.00 ten times as much.\n\n")
                .append("| row | what | compared with | x |\n|---|---|---|---|\n");
        for (BenchRow r : rows) {
            ratio(r).ifPresent(x -> b.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f |%n", cell(r.id()),
                    cell(r.what()), cell(r.ratioTo()), x)));
        }
        b.append("\n## Absolute figures\n\n| row | part | what | ok | actions/s | p50 ms | p95 ms | p99 ms | max ms "
                + "| notes |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (BenchRow r : rows) {
            BenchRow.Latency l = r.latency();
            b.append(String.format(Locale.ROOT, "| %s | %s | %s | %d/%d | %.0f | %s | %s | %s | %s | %s |%n",
                    cell(r.id()), cell(r.part()), cell(r.what()), r.completed(), r.actions(), r.throughput(),
                    ms(l == null ? null : l.p50()),
                    ms(l == null ? null : l.p95()), ms(l == null ? null : l.p99()), ms(l == null ? null : l.max()),
                    cell(notes(r.notes()))));
        }
        if (budget != null) {
            b.append(String.format(Locale.ROOT, "%n## Budget per action (row f, %d actions counted on the broker)%n%n",
                    budget.actions()));
            b.append(String.format(Locale.ROOT, "In all %.2f records, %.0f bytes and %.2f transaction markers per "
                    + "action.%n%n", budget.recordsPerAction(), budget.bytesPerAction(), budget.markersPerAction()));
            b.append("| topic | kind | partitions | records/action | bytes/record | markers/action |\n"
                    + "|---|---|---|---|---|---|\n");
            for (RecordCounts.TopicCount t : budget.topics()) {
                b.append(String.format(Locale.ROOT, "| %s | %s | %d | %.2f | %.0f | %.2f |%n", cell(t.topic()),
                        t.kind(),
                        t.partitions(), budget.perAction(t), t.bytesPerRecord(),
                        (double) t.markers() / budget.actions()));
            }
        }
        b.append("\n## Machine and configuration\n\n");
        b.append("- machine: ").append(machine.describe()).append('\n');
        parameters.forEach((k, v) -> b.append("- ").append(k).append(": ").append(v).append('\n'));
        b.append("\n## Invariants\n\n| part | invariant | held | detail |\n|---|---|---|---|\n");
        for (Invariant inv : invariants) {
            b.append("| ").append(cell(inv.part())).append(" | ").append(cell(inv.name())).append(" | ")
                    .append(inv.held() ? "yes" : "**NO**").append(" | ").append(cell(inv.detail())).append(" |\n");
        }
        b.append("\n![throughput and latency per row](").append(PLOT).append(")\n");
        return b.toString().replace("\r", "");
    }

    private static String ms(Double v) {
        return v == null || v.isNaN() ? "" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String notes(Map<String, String> notes) {
        StringBuilder b = new StringBuilder();
        new TreeMap<>(notes).forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append('=')
                .append(v));
        return b.toString();
    }

    /** A markdown table cell: pipes escaped, on one line. */
    private static String cell(String text) {
        return text == null ? "" : text.replace("|", "\\|").replace('\n', ' ');
    }

    /** The JSON report; see load-tests/README.md, "bench-report.json". */
    public String json() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("schema", SCHEMA);
        root.put("started", started.toString());
        root.put("finished", finished.toString());
        root.put("ok", ok());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", machine.cores());
        m.put("jvm", machine.jvm());
        m.put("java_version", machine.javaVersion());
        m.put("java_vendor", machine.javaVendor());
        m.put("max_heap_mib", machine.maxHeapMib());
        m.put("gc", machine.gc());
        m.put("os", machine.os());
        m.put("load_average_start", finite(machine.loadAverageStart()));
        m.put("load_average_end", finite(machine.loadAverageEnd()));
        root.put("machine", m);
        root.put("parameters", parameters);
        List<Object> goals = new ArrayList<>();
        for (Goals.Result g : goals()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("id", g.id());
            o.put("goal", g.goal());
            o.put("target", g.target());
            o.put("value", g.value());
            o.put("unit", g.unit());
            o.put("rows", g.rows());
            o.put("status", g.status().label());
            o.put("detail", g.detail());
            goals.add(o);
        }
        root.put("goals", goals);
        List<Object> rowList = new ArrayList<>();
        for (BenchRow r : rows) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("id", r.id());
            o.put("part", r.part());
            o.put("what", r.what());
            o.put("actions", r.actions());
            o.put("completed", r.completed());
            o.put("throughput_per_s", finite(r.throughput()));
            if (r.latency() == null) {
                o.put("latency_ms", null);
            } else {
                Map<String, Object> l = new LinkedHashMap<>();
                l.put("p50", finite(r.latency().p50()));
                l.put("p95", finite(r.latency().p95()));
                l.put("p99", finite(r.latency().p99()));
                l.put("max", finite(r.latency().max()));
                o.put("latency_ms", l);
            }
            o.put("ratio_to", r.ratioTo());
            o.put("ratio", ratio(r).orElse(null));
            o.put("notes", new TreeMap<>(r.notes()));
            rowList.add(o);
        }
        root.put("rows", rowList);
        if (budget == null) {
            root.put("budget", null);
        } else {
            Map<String, Object> bud = new LinkedHashMap<>();
            bud.put("row", "f");
            bud.put("actions", budget.actions());
            bud.put("records_per_action", budget.recordsPerAction());
            bud.put("bytes_per_action", budget.bytesPerAction());
            bud.put("markers_per_action", budget.markersPerAction());
            List<Object> topics = new ArrayList<>();
            for (RecordCounts.TopicCount t : budget.topics()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("topic", t.topic());
                o.put("kind", t.kind());
                o.put("partitions", t.partitions());
                o.put("records", t.records());
                o.put("records_per_action", budget.perAction(t));
                o.put("bytes_per_record", t.bytesPerRecord());
                o.put("markers", t.markers());
                o.put("aborted", t.aborted());
                topics.add(o);
            }
            bud.put("topics", topics);
            root.put("budget", bud);
        }
        List<Object> inv = new ArrayList<>();
        for (Invariant i : invariants) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("part", i.part());
            o.put("name", i.name());
            o.put("held", i.held());
            o.put("detail", i.detail());
            inv.add(o);
        }
        root.put("invariants", inv);
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("report not serializable", e);
        }
    }

    /** JSON has no NaN or infinity: those become null. */
    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
