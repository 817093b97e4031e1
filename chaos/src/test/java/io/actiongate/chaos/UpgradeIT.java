package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The rolling upgrade, short: the previous release (built from this checkout's git history, the last release tag or
 * the commit rolling upgrades were first tested from; {@link ReleaseBuild}) runs every role on three brokers under
 * load, actions are put in flight in every state, each role's instances are replaced by this build one at a time,
 * and the chaos checker finds no duplicate, lost or hanging, every action ending as it must; the approval service's
 * people stay signed in and their one-time codes keep working; the previous release's gate then reads the current
 * release's data. The full run's report is committed (docs/chaos.md, "Rolling upgrade").
 */
@Tag("system")
class UpgradeIT {

    @Test
    void shouldReplaceEveryRoleOfThePreviousReleaseUnderLoadLosingNothing() throws Exception {
        StringWriter printed = new StringWriter();
        PrintWriter out = new PrintWriter(printed, true);
        Path repository = ReleaseBuild.repository();
        Path cache = Path.of(System.getProperty("actiongate.release.cache",
                Path.of(System.getProperty("user.home"), ".cache", "actiongate", "releases").toString()));
        ReleaseBuild.Built previous = ReleaseBuild.build(repository, ReleaseBuild.defaultRef(repository), cache, out);
        // kept after the run (target/, not a temporary folder): a failure is read from the roles' logs
        Path results = Path.of("target", "upgrade-it-" + System.currentTimeMillis()).toAbsolutePath();
        ChaosRun.Options options = new ChaosRun.Options(Duration.ofSeconds(60), 43, 2, 4, 3.0,
                Duration.ofHours(1), results, "256m", Duration.ofMinutes(4), true).upgradingFrom(previous);

        int exit = new ChaosRun(options, out).run();

        String text = printed.toString();
        System.out.println(text);
        assertThat(exit).as("checker verdict; what the run printed about it:%n%s", ChaosIT.whatFailed(text)).isZero();
        JsonNode report = new ObjectMapper().readTree(results.resolve("chaos-report.json").toFile());
        assertThat(report.get("scenario").asText()).isEqualTo("rolling-upgrade-under-load");
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("duplicates").asLong()).isZero();
        assertThat(report.get("lost").asLong()).isZero();
        assertThat(report.get("hangingTransactions").asLong()).isZero();
        JsonNode steps = report.get("faultsByKind");
        assertThat(steps.get("UPGRADE_GATE").asInt()).isEqualTo(2);
        assertThat(steps.get("UPGRADE_EXECUTOR").asInt()).isEqualTo(2);
        assertThat(steps.get("UPGRADE_RECONCILER").asInt()).isEqualTo(1);
        assertThat(steps.get("UPGRADE_APPROVER").asInt()).isEqualTo(2);
        assertThat(steps.get("UPGRADE_GATEWAY").asInt()).isEqualTo(1);
        assertThat(steps.get("ROLLBACK_DRILL").asInt()).isEqualTo(1);
        JsonNode counts = report.get("checkerCounts");
        for (String kind : new String[] {"AWAITING_HUMAN", "RETRY_DUE", "EXPIRING", "RECONCILER_ASKING",
                "AT_PROVIDER", "RESERVED", "ROLLBACK_READ"}) {
            assertThat(counts.get("actions." + kind)).as(kind).isNotNull();
            assertThat(counts.get("actions." + kind).asInt()).as(kind).isPositive();
        }
        assertThat(counts.get("(o) actions with a prescribed end").asInt()).isGreaterThanOrEqualTo(21);
        assertThat(report.get("finalStatuses").get("EXPIRED").asInt()).isPositive();
        assertThat(report.get("unknownResolutions").toString()).contains("SUCCEEDED by RECONCILER");
        assertThat(Files.readString(results.resolve("chaos-report.md")))
                .contains("## Scenario: rolling upgrade from " + previous.ref())
                .contains("Result: **PASS**");
    }
}
