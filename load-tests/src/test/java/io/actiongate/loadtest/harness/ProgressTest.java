package io.actiongate.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The progress bar's text, and that only the bar redraws while lines print once per finished task. */
class ProgressTest {

    @Test
    void shouldDrawPercentageCountRateAndTimeLeft() {
        String bar = Progress.bar("rows e and f", 500, 2000, 10);

        assertThat(bar).startsWith("rows e and f").contains("[" + "#".repeat(8) + "-".repeat(22) + "]", " 25.0%",
                "500/2,000", "50.0/s", "ETA 30s");
    }

    @Test
    void shouldSayDoneAtTheEndAndShowCountAndRateWithoutATotal() {
        assertThat(Progress.bar("x", 10, 10, 2)).contains("100.0%", "10/10", "done");
        assertThat(Progress.bar("x", 3000, 0, 2)).contains("3,000", "1,500/s", "2s").doesNotContain("%");
        assertThat(Progress.bar("x", 0, 10, 0)).contains("ETA ?");
        assertThat(Progress.bar("topology", 0, 0, 65)).contains("running", "1m05s");
        assertThat(Progress.duration(125)).isEqualTo("2m05s");
    }

    @Test
    void shouldPrintOneLinePerFinishedTaskWhenNotATerminal() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress progress = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), Progress.Mode.LINES);

        try (Progress.Task task = progress.start("row p", 100)) {
            task.advance(40);
            task.set(100);
            assertThat(bytes.size()).as("nothing until the task ends").isZero();
        }

        assertThat(bytes.toString(StandardCharsets.UTF_8)).matches("row p: 100/100 in \\d+s\\R");
    }

    @Test
    void shouldRedrawTheBarInPlaceAndPrintNothingWhenOff() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress bar = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), Progress.Mode.BAR);
        try (Progress.Task task = bar.start("row f", 10)) {
            task.set(10);
        }
        String drawn = bytes.toString(StandardCharsets.UTF_8);
        assertThat(drawn).startsWith("\r").contains("100.0%").endsWith(System.lineSeparator());

        ByteArrayOutputStream none = new ByteArrayOutputStream();
        try (Progress.Task task = new Progress(new PrintStream(none, true, StandardCharsets.UTF_8),
                Progress.Mode.OFF).start("x", 1)) {
            task.advance(1);
        }
        assertThat(none.size()).isZero();
        assertThat(Progress.mode(false, true)).isEqualTo(Progress.Mode.OFF);
        assertThat(Progress.mode(true, true)).isEqualTo(Progress.Mode.BAR);
    }
}
