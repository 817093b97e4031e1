package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The short seeded chaos run of CI: a few hundred actions, a handful of faults (kill -9 of a gate, an executor, the
 * reconciler and the MCP gateway, a SIGSTOPped executor, provider timeouts after apply and 5xx), every child JVM
 * with a 256 MB heap, then the checker. Any duplicate, lost action or hanging transaction fails it. No kill -9 of
 * the single broker: Kafka 4.4 can leave a hanging transaction behind it (docs/chaos.md, "Hanging transactions after
 * a single broker's kill -9"), which failed this run with seed 22 on CI and here; ClusterIT kills brokers of a
 * three-node cluster instead.
 */
@Tag("system")
class ChaosIT {

    /** Its faults include a kill -9 of the MCP gateway and none of the broker (FaultPlanTest checks both). */
    static final long SEED = 130;

    @Test
    void shouldEndWithoutDuplicatesLostActionsOrHangingTransactionsUnderSeededFaults(@TempDir Path dir)
            throws Exception {
        Path results = dir.resolve("results");
        StringWriter printed = new StringWriter();
        ChaosRun.Options options = new ChaosRun.Options(Duration.ofSeconds(75), SEED, 2, 4, 4.0,
                Duration.ofSeconds(10), results, "256m", Duration.ofMinutes(3));

        int exit = new ChaosRun(options, new PrintWriter(printed, true)).run();

        String out = printed.toString();
        System.out.println(out);
        assertThat(out).contains("fault schedule (seed " + SEED + ", ", "kill -9 the MCP gateway");
        // CI shows only the assertion's message, not the run's printout: name what failed in it
        assertThat(exit).as("checker verdict; what the run printed about it:%n%s", whatFailed(out)).isZero();
        JsonNode report = new ObjectMapper().readTree(results.resolve("chaos-report.json").toFile());
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("duplicates").asLong()).isZero();
        assertThat(report.get("lost").asLong()).isZero();
        assertThat(report.get("hangingTransactions").asLong()).isZero();
        assertThat(report.get("actions").asInt()).isGreaterThanOrEqualTo(200);
        assertThat(report.get("faultsInjected").asInt()).isGreaterThanOrEqualTo(5);
        assertThat(report.get("providerEffects").asInt()).isPositive();
        assertThat(report.get("checkerCounts").get("actions.checked").asInt()).isGreaterThanOrEqualTo(200);
        // (m): the approved actions' effects were each checked for exactly one valid approval
        assertThat(report.get("checkerCounts").get("(m) effects checked for exactly one valid approval").asInt())
                .isPositive();
        // (n): the MCP host's calls through the gateway, across its kill -9, each executed at most once upstream
        assertThat(report.get("checkerCounts").get("(n) MCP calls issued by the load").asInt()).isPositive();
        assertThat(report.get("checkerCounts").get("(n) MCP calls with an effect at the upstream").asInt())
                .isPositive();
        assertThat(Files.readString(results.resolve("chaos-report.md"))).contains("Result: **PASS**: 0 duplicates, "
                + "0 lost, 0 hanging transactions");
    }

    /** The lines of the printout that say what went wrong: violations, timeouts, failed faults, the verdict. */
    static String whatFailed(String out) {
        return out.lines().filter(line -> line.contains("VIOLATION") || line.contains("timeout")
                || line.contains("failed") || line.contains("exited") || line.contains("RESULT"))
                .limit(40).collect(Collectors.joining("\n"));
    }
}
