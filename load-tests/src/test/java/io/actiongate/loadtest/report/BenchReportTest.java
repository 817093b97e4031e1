package io.actiongate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The report files from a fixed list of rows: markdown, JSON that parses back, and a PNG that decodes. */
class BenchReportTest {

    @TempDir
    Path dir;

    static List<BenchRow> rows() {
        return List.of(
                new BenchRow("topology", "a", "baseline", 1000, 1000, 200_000, null, null, Map.of()),
                new BenchRow("topology", "c2", "signed APPROVE", 1000, 1000, 1_500, null, "a", Map.of()),
                new BenchRow("broker", "e", "pass-through", 2000, 2000, 7_000,
                        new BenchRow.Latency(150, 250, 260, 270), null, Map.of("partitions", "12")),
                new BenchRow("broker", "f", "read-only | end to end", 2000, 2000, 550,
                        new BenchRow.Latency(2400, 3500, 3700, 3900), "e", Map.of("records_per_action", "9.00")),
                new BenchRow("physical", "p", "physical limit", 50_000, 50_000, 2_000, null, null,
                        Map.of("records_per_s", "18000")),
                new BenchRow("open-loop", "ol50", "open loop 50 %", 1000, 1000, 275,
                        new BenchRow.Latency(120, 180, 240, 400), "f", Map.of()));
    }

    static BenchReport report(List<BenchRow> rows, boolean held) {
        RecordCounts.Budget budget = new RecordCounts.Budget(2000, List.of(
                new RecordCounts.TopicCount("g.receipts", "contract", 12, 7000, 6000, 6000, 240_000, 600_000),
                new RecordCounts.TopicCount("g-store-changelog", "changelog", 12, 13000, 12000, 12000, 480_000,
                        3_600_000)));
        return new BenchReport(Instant.parse("2026-12-01T02:00:00Z"), Instant.parse("2026-12-01T02:05:00Z"),
                new BenchReport.Machine(2, "OpenJDK 64-Bit Server VM", "17.0.15", "Debian", 6000, "G1", "Linux amd64",
                        1.5, 2.5),
                Map.of("broker_actions", 2000, "partitions", 12), rows,
                List.of(new Invariant("broker", "row f: every action SUCCEEDED", true, "2000/2000"),
                        new Invariant("physical", "row p: all committed", held, "50000 of 50000")),
                budget);
    }

    @Test
    void shouldWriteMarkdownWithGoalsAndRatiosBeforeTheAbsoluteFigures() throws Exception {
        List<Path> files = report(rows(), true).write(dir);

        assertThat(files).containsExactly(dir.resolve("bench-report.md"), dir.resolve("bench-report.json"),
                dir.resolve("bench-plot.png"));
        String md = Files.readString(dir.resolve("bench-report.md"), StandardCharsets.UTF_8);
        assertThat(md).contains("Invariants: all 2 held", "| f | read-only \\| end to end | e | 12.73 |",
                "NOT MET", "not measured", "| g.receipts | contract | 12 | 3.00 | 140 | 0.50 |",
                "In all 9.00 records", "17.0.15", "broker_actions: 2000", "![throughput and latency per row]");
        assertThat(md.indexOf("## Goals")).isLessThan(md.indexOf("## Ratios"));
        assertThat(md.indexOf("## Ratios")).isLessThan(md.indexOf("## Absolute figures"));
        assertThat(md.indexOf("## Absolute figures")).isLessThan(md.indexOf("## Machine and configuration"));
        assertThat(md).contains("## Invariants");
    }

    @Test
    void shouldWriteJsonThatParsesBackWithEveryRowGoalAndInvariant() throws Exception {
        report(rows(), false).write(dir);

        JsonNode root = new ObjectMapper().readTree(dir.resolve("bench-report.json").toFile());
        assertThat(root.get("schema").asText()).isEqualTo(BenchReport.SCHEMA);
        assertThat(root.get("ok").asBoolean()).isFalse();
        assertThat(root.get("machine").get("cores").asInt()).isEqualTo(2);
        assertThat(root.get("parameters").get("partitions").asInt()).isEqualTo(12);
        assertThat(root.get("rows")).hasSize(6);
        JsonNode f = root.get("rows").get(3);
        assertThat(f.get("id").asText()).isEqualTo("f");
        assertThat(f.get("throughput_per_s").asDouble()).isEqualTo(550);
        assertThat(f.get("latency_ms").get("p99").asDouble()).isEqualTo(3700);
        assertThat(f.get("ratio_to").asText()).isEqualTo("e");
        assertThat(f.get("ratio").asDouble()).isCloseTo(7000.0 / 550, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(f.get("notes").get("records_per_action").asText()).isEqualTo("9.00");
        assertThat(root.get("rows").get(0).get("latency_ms").isNull()).isTrue();
        assertThat(root.get("rows").get(0).get("ratio").isNull()).isTrue();
        assertThat(root.get("goals")).hasSize(Goals.evaluate(java.util.List.of()).size());
        JsonNode halfSaturation = root.get("goals").get(5);
        assertThat(halfSaturation.get("id").asText()).isEqualTo("p99_at_half_saturation");
        assertThat(halfSaturation.get("status").asText()).isEqualTo("NOT MET"); // ol50's p99 240 ms > 150
        assertThat(halfSaturation.get("value").asDouble()).isEqualTo(240);
        assertThat(halfSaturation.get("target").asText()).isEqualTo("<= 150 ms");
        assertThat(root.get("goals").get(3).get("id").asText()).isEqualTo("approval_decisions");
        assertThat(root.get("goals").get(3).get("status").asText()).isEqualTo("NOT MET"); // c2's 1,500/s
        assertThat(root.get("goals").get(1).get("status").asText()).isEqualTo("not measured");
        assertThat(root.get("goals").get(1).get("value").isNull()).isTrue();
        assertThat(root.get("budget").get("records_per_action").asDouble()).isEqualTo(9.0);
        assertThat(root.get("budget").get("topics").get(0).get("markers").asLong()).isEqualTo(1000);
        assertThat(root.get("invariants")).hasSize(2);
        assertThat(root.get("invariants").get(1).get("held").asBoolean()).isFalse();
    }

    @Test
    void shouldDrawAPngOfTheExpectedSize() throws Exception {
        report(rows(), true).write(dir);

        BufferedImage image = ImageIO.read(dir.resolve("bench-plot.png").toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(BenchPlot.WIDTH);
        assertThat(image.getHeight()).isEqualTo(BenchPlot.HEIGHT);
        assertThat(distinctColours(image)).as("a drawn chart, not a blank image").isGreaterThan(10);
    }

    @Test
    void shouldDrawAPngWithoutAnyLatencyRowOrBudget() throws Exception {
        BenchReport report = new BenchReport(Instant.now(), Instant.now(), BenchReport.Machine.now(0.5), Map.of(),
                rows().subList(0, 2), List.of(), null);

        report.write(dir);

        assertThat(ImageIO.read(dir.resolve("bench-plot.png").toFile()).getWidth()).isEqualTo(BenchPlot.WIDTH);
        assertThat(new ObjectMapper().readTree(dir.resolve("bench-report.json").toFile()).get("budget").isNull())
                .isTrue();
    }

    private static int distinctColours(BufferedImage image) {
        java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 7) {
            for (int x = 0; x < image.getWidth(); x += 7) {
                colours.add(image.getRGB(x, y));
            }
        }
        return colours.size();
    }
}
