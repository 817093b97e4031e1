package io.actiongate.loadtest.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import javax.imageio.ImageIO;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * {@value BenchReport#PLOT}: two bar charts stacked in one PNG of {@value #WIDTH} x {@value #HEIGHT} pixels, drawn
 * headless. Above, the throughput of every row (actions/s, one colour per part); below, p50 and p99 latency of every row that measures
 * latency. An axis turns logarithmic when its values span more than {@value #LOG_SPAN} times, which they do as soon
 * as a topology row (hundreds of thousands/s) stands beside an end-to-end one (hundreds/s). Dashed lines mark the
 * issue's goals that apply to a chart (dv's or else c2's 5,000 decisions/s; 150 ms for ol50's p99 and 60 ms for
 * light's p50, {@link Goals}).
 */
public final class BenchPlot {

    public static final int WIDTH = 1200;
    public static final int HEIGHT = 1000;
    public static final double LOG_SPAN = 20;

    private static final Color P50 = new Color(0x4C78A8);
    private static final Color P99 = new Color(0xF58518);
    private static final Color GOAL = new Color(0xB0, 0x20, 0x20);
    private static final Color[] PALETTE = {new Color(0x4C78A8), new Color(0x54A24B), new Color(0xE45756),
        new Color(0x72B7B2), new Color(0xB279A2), new Color(0xEECA3B), new Color(0x9D755D), new Color(0xBAB0AC)};

    private BenchPlot() {
    }

    public static void write(List<BenchRow> rows, Path png) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            throughput(rows).draw(g, new Rectangle2D.Double(0, 0, WIDTH, HEIGHT / 2.0));
            latency(rows).draw(g, new Rectangle2D.Double(0, HEIGHT / 2.0, WIDTH, HEIGHT / 2.0));
        } finally {
            g.dispose();
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        if (!ImageIO.write(image, "png", png.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
    }

    private static JFreeChart throughput(List<BenchRow> rows) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (BenchRow r : rows) {
            if (r.throughput() > 0 && Double.isFinite(r.throughput())) {
                data.addValue(r.throughput(), "actions/s", r.id());
            }
        }
        JFreeChart chart = chart("Throughput per row (actions/s, higher is better)", "actions/s", data);
        CategoryPlot plot = chart.getCategoryPlot();
        // one colour per part, so topology rows, end-to-end rows and limits read apart
        List<String> parts = rows.stream().map(BenchRow::part).distinct().toList();
        Map<String, String> partOfRow = new HashMap<>();
        rows.forEach(r -> partOfRow.putIfAbsent(r.id(), r.part()));
        BarRenderer byPart = new BarRenderer() {
            private static final long serialVersionUID = 1L;

            @Override
            public Paint getItemPaint(int row, int column) {
                String part = partOfRow.get((String) data.getColumnKey(column));
                return PALETTE[Math.max(0, parts.indexOf(part)) % PALETTE.length];
            }
        };
        style(byPart);
        plot.setRenderer(byPart);
        LegendItemCollection legend = new LegendItemCollection();
        for (int i = 0; i < parts.size(); i++) {
            legend.add(new LegendItem("part " + parts.get(i), PALETTE[i % PALETTE.length]));
        }
        plot.setFixedLegendItems(legend);
        String decisions = row(rows, "dv").isPresent() ? "dv" : "c2"; // the row Goals reads
        double c2Goal = row(rows, decisions).isPresent() ? 5000 : 0;
        rangeAxis(plot, "actions/s", data, c2Goal);
        if (c2Goal > 0) {
            goal(plot, c2Goal, "goal " + decisions + ": 5,000/s");
        }
        return chart;
    }

    private static JFreeChart latency(List<BenchRow> rows) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (BenchRow r : rows) {
            BenchRow.Latency l = r.latency();
            if (l != null && l.p50() > 0 && l.p99() > 0) {
                data.addValue(l.p50(), "p50", r.id());
                data.addValue(l.p99(), "p99", r.id());
            }
        }
        JFreeChart chart = chart("Latency per row, proposal to output (ms, lower is better)", "ms", data);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.getRenderer().setSeriesPaint(0, P50);
        plot.getRenderer().setSeriesPaint(1, P99);
        double halfSaturation = row(rows, "ol50").isPresent() ? Goals.HALF_SATURATION_P99_MS : 0;
        double light = row(rows, "light").isPresent() ? Goals.LIGHT_LOAD_P50_MS : 0;
        rangeAxis(plot, "ms", data, halfSaturation, light);
        if (halfSaturation > 0) {
            goal(plot, halfSaturation, String.format(Locale.ROOT, "goal ol50 p99: %.0f ms", halfSaturation));
        }
        if (light > 0) {
            goal(plot, light, String.format(Locale.ROOT, "goal light p50: %.0f ms", light));
        }
        if (data.getColumnCount() == 0) {
            plot.setNoDataMessage("no row of this run measures latency");
        }
        return chart;
    }

    private static JFreeChart chart(String title, String unit, DefaultCategoryDataset data) {
        JFreeChart chart = ChartFactory.createBarChart(title, "row", unit, data, PlotOrientation.VERTICAL, true,
                false, false);
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(new Color(0xF7F7F7));
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.STANDARD);
        style((BarRenderer) plot.getRenderer());
        return chart;
    }

    private static void style(BarRenderer renderer) {
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setItemMargin(0.05);
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}",
                new DecimalFormat("#,##0")));
        renderer.setDefaultItemLabelsVisible(true);
        renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    }

    /**
     * A logarithmic axis when the values (and the goal lines to show) span more than {@link #LOG_SPAN} times, else a
     * linear one from 0.
     */
    private static void rangeAxis(CategoryPlot plot, String label, DefaultCategoryDataset data, double... goals) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double goal : goals) {
            if (goal > 0) {
                min = Math.min(min, goal);
                max = Math.max(max, goal);
            }
        }
        for (int r = 0; r < data.getRowCount(); r++) {
            for (int c = 0; c < data.getColumnCount(); c++) {
                Number v = data.getValue(r, c);
                if (v != null && v.doubleValue() > 0) {
                    min = Math.min(min, v.doubleValue());
                    max = Math.max(max, v.doubleValue());
                }
            }
        }
        ValueAxis axis;
        if (max > 0 && max / min > LOG_SPAN) {
            LogAxis log = new LogAxis(label + " (log scale)");
            log.setBase(10);
            log.setSmallestValue(Math.pow(10, Math.floor(Math.log10(min))));
            log.setNumberFormatOverride(new DecimalFormat("#,##0.###"));
            log.setTickUnit(new NumberTickUnit(1)); // one labelled tick per decade
            log.setMinorTickMarksVisible(true);
            log.setMinorTickCount(9);
            log.setLowerBound(Math.pow(10, Math.floor(Math.log10(min))));
            log.setUpperBound(Math.pow(10, Math.ceil(Math.log10(max * 1.5))));
            axis = log;
        } else {
            NumberAxis linear = new NumberAxis(label);
            linear.setAutoRangeIncludesZero(true);
            linear.setUpperMargin(0.15);
            axis = linear;
        }
        plot.setRangeAxis(axis);
    }

    private static void goal(CategoryPlot plot, double value, String label) {
        ValueMarker marker = new ValueMarker(value, GOAL, new BasicStroke(1.5f, BasicStroke.CAP_BUTT,
                BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        marker.setLabel(label);
        marker.setLabelPaint(GOAL);
        marker.setLabelBackgroundColor(new Color(255, 255, 255, 200));
        marker.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        marker.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        marker.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
        plot.addRangeMarker(marker);
    }

    private static Optional<BenchRow> row(List<BenchRow> rows, String id) {
        return rows.stream().filter(r -> r.id().equals(id)).findFirst();
    }
}
