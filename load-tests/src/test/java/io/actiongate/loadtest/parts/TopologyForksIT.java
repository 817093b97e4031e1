package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Collection;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Part topology as a user runs it: every row in a forked JVM of its own (one JVM per row), the rounds' counts of
 * actions in the expected state carried back by {@link RoundCheck}; and row a as a plain JMH command line runs it,
 * with only the benchmark class's own annotations. Six JVMs with Kafka Streams in each: the system tier.
 */
@Tag("system")
class TopologyForksIT {

    private static final int ACTIONS = 200;

    @TempDir
    Path stateDir;

    @Test
    void shouldBringEveryActionOfEveryRowToItsExpectedStateInForkedJvms() {
        TopologyBenchTest.assertEveryRowComplete(new TopologyBench(ACTIONS, 1, 1, stateDir));
    }

    @Test
    void shouldRunRowAAsAPlainJmhCommandLine() throws Exception {
        CommandLineOptions plain = new CommandLineOptions("-p", TopologyBenchmarks.ACTIONS_PARAM + "=" + ACTIONS,
                "-wi", "0", "-i", "1", "-jvmArgsAppend", "-D" + TopologyBenchmarks.STATE_DIR_PROPERTY + "="
                        + stateDir, TopologyBenchmarks.class.getName() + ".a_baseline");

        Collection<RunResult> results = new Runner(plain, OutputFormatFactory.createFormatInstance(
                new PrintStream(OutputStream.nullOutputStream()), VerboseMode.SILENT)).run();

        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.getParams().getForks()).as("forks from the class's @Fork").isEqualTo(TopologyBenchmarks.FORKS);
            assertThat(r.getPrimaryResult().getScore()).isPositive();
        });
    }
}
