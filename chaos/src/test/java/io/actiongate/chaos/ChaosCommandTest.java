package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

class ChaosCommandTest {

    @Test
    void shouldRunAtHalfTheMeasuredSaturationUnlessARateIsGiven() {
        assertThat(ChaosCommand.arrivalRate(null, null)).isEqualTo(ChaosCommand.DEFAULT_RATE);
        assertThat(ChaosCommand.arrivalRate(null, 800.0)).isEqualTo(400.0);
        assertThat(ChaosCommand.arrivalRate(25.0, 800.0)).isEqualTo(25.0);
    }

    @Test
    void shouldPrintTheConfiguredRateAndTheSaturationItIsAShareOf() {
        assertThat(ChaosCommand.describeRate(400, 800.0))
                .isEqualTo("arrival rate: 400.0 actions/s, measured saturation 800.0 actions/s (50 %)");
        assertThat(ChaosCommand.describeRate(4, null)).startsWith("arrival rate: 4.0 actions/s (saturation not "
                + "given");
    }

    @Test
    void shouldRefuseANonPositiveSaturationWithExitCodeTwo() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ChaosCommand());
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));

        int exit = cli.execute("--saturation", "0", "--results", "target/never");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--saturation");
    }
}
