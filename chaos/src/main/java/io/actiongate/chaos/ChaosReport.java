package io.actiongate.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.actiongate.chaos.check.CheckResult;
import io.actiongate.chaos.check.ProviderLog;

/** Writes {@code chaos-report.md} and {@code chaos-report.json} for one scenario into the results folder. */
final class ChaosReport {

    private ChaosReport() {
    }

    static void write(Path results, ChaosRun.Options options, FaultPlan plan, List<ChaosRun.FaultRecord> faults,
                      CheckResult result, Load load, ProviderLog provider, long wallMs) throws IOException {
        write(results, options, plan, faults, result, load, provider, wallMs, new LinkedHashMap<>());
    }

    /** @param extra further rows of the scenario table (and keys of the JSON): saturation, the approval service */
    static void write(Path results, ChaosRun.Options options, FaultPlan plan, List<ChaosRun.FaultRecord> faults,
                      CheckResult result, Load load, ProviderLog provider, long wallMs, Map<String, Object> extra)
            throws IOException {
        Map<String, Long> kinds = new TreeMap<>();
        load.actions().forEach(a -> kinds.merge(a.kind.name(), 1L, Long::sum));
        long posts = provider.byKey().values().stream().mapToLong(ProviderLog.Entry::posts).sum();
        long effects = provider.byKey().values().stream().mapToLong(ProviderLog.Entry::effects).sum();
        long lookups = provider.byKey().values().stream().mapToLong(ProviderLog.Entry::lookups).sum();
        Map<String, Long> faultKinds = new TreeMap<>();
        faults.forEach(f -> faultKinds.merge(f.kind(), 1L, Long::sum));
        RecoveryGoal recovery = RecoveryGoal.of(faults);
        boolean upgrade = options.upgrade();

        Map<String, Object> json = new LinkedHashMap<>();
        json.put("scenario", upgrade ? "rolling-upgrade-under-load"
                : "mixed-load-with-process-broker-and-provider-faults");
        if (upgrade) {
            json.put("upgradeFrom", options.previous().ref());
            json.put("upgradeFromCommit", options.previous().commit());
        }
        json.put("seed", options.seed());
        json.put("durationSeconds", options.duration().toSeconds());
        json.put("wallSeconds", wallMs / 1000);
        json.put("cluster", options.cluster());
        json.put("brokers", options.cluster() ? ChaosRun.CLUSTER_NODES : 1);
        json.put("replicationFactor", options.replicationFactor());
        json.put("gateClockSkewSeconds", options.gateClockSkew().toSeconds());
        json.put("gates", options.gates());
        json.put("partitions", options.partitions());
        json.put("actionsPerSecond", options.actionsPerSecond());
        json.put("actions", load.actions().size());
        json.put("actionsByKind", kinds);
        json.put("proposalRecordsSent", load.proposalsSent());
        json.put("decisionRecordsSent", load.decisionsSent());
        json.put("faultsPlanned", plan.steps().size());
        json.put("faultsInjected", faults.size());
        json.put("faultsByKind", faultKinds);
        json.put("faults", faults);
        json.put("recoveryGoalSeconds", RecoveryGoal.GOAL.toSeconds());
        json.put("recoveryP95Ms", recovery.p95Ms());
        json.put("recoveryMaxMs", recovery.maxMs());
        json.put("recoveryBeyondGoal", recovery.beyond());
        json.put("recoveryLongerByDesign", recovery.longer());
        json.put("providerDispatchRequests", posts);
        json.put("providerEffects", effects);
        json.put("providerLookups", lookups);
        json.put("duplicates", result.duplicates());
        json.put("lost", result.lost());
        json.put("hangingTransactions", result.hanging());
        json.put("finalStatuses", result.finalStatuses());
        json.put("unknownResolutions", result.unknownResolutions());
        json.put("checkerCounts", result.counts());
        json.put("violations", result.violations());
        json.putAll(extra);
        json.put("ok", result.ok());
        ChaosRun.writeJson(results.resolve("chaos-report.json"), json);

        StringBuilder md = new StringBuilder();
        md.append("# actiongate chaos report\n\n");
        md.append("Command: `./actiongate chaos --duration ").append(options.duration().toSeconds()).append("s --seed ")
                .append(options.seed()).append(" --gates ").append(options.gates()).append(" --partitions ")
                .append(options.partitions()).append(" --rate ").append(options.actionsPerSecond())
                .append(options.cluster() ? " --cluster" : "")
                .append(upgrade ? " --upgrade-from " + options.previous().ref() : "")
                .append(options.gateClockSkew().isZero() ? "" : " --gate-clock-skew "
                        + (options.gateClockSkew().isNegative() ? "-" : "+") + options.gateClockSkew().abs().toSeconds()
                        + "s").append("`\n\n");
        md.append(options.cluster() ? "Cluster: " + ChaosRun.CLUSTER_NODES + " KRaft nodes, replication factor "
                + ChaosRun.CLUSTER_NODES + ", min.insync.replicas " + ChaosRun.CLUSTER_MIN_ISR
                + ", unclean leader election off.\n\n" : "One broker, replication factor 1.\n\n");
        md.append("Result: **").append(result.ok() ? "PASS" : "FAIL").append("**: ").append(result.duplicates())
                .append(" duplicates, ").append(result.lost()).append(" lost, ").append(result.hanging())
                .append(" hanging transactions, ").append(result.violations().size()).append(" violation(s).\n\n");
        md.append(recovery.describe()).append("\n\n");
        md.append(upgrade ? "## Scenario: rolling upgrade from " + options.previous().ref() + " (commit "
                + options.previous().shortCommit() + ") to this build, under load\n\n"
                : "## Scenario: mixed load, process, broker and provider faults\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| actions | ").append(load.actions().size()).append(' ').append(kinds).append(" |\n");
        md.append("| proposal / decision records sent | ").append(load.proposalsSent()).append(" / ")
                .append(load.decisionsSent()).append(" |\n");
        if (upgrade) {
            md.append("| upgrade steps | ").append(faults.size()).append(' ').append(faultKinds).append(" |\n");
        } else {
            md.append("| faults injected | ").append(faults.size()).append(" of ").append(plan.steps().size())
                    .append(" planned ").append(faultKinds).append(" |\n");
        }
        md.append("| provider dispatch requests / effects / lookups | ").append(posts).append(" / ").append(effects)
                .append(" / ").append(lookups).append(" |\n");
        md.append("| duplicates | ").append(result.duplicates()).append(" |\n");
        md.append("| lost | ").append(result.lost()).append(" |\n");
        md.append("| hanging transactions | ").append(result.hanging()).append(" |\n");
        md.append("| final receipt statuses | ").append(result.finalStatuses()).append(" |\n");
        md.append("| went through UNKNOWN, ended | ").append(result.unknownResolutions()).append(" |\n");
        extra.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append("| wall time | ").append(wallMs / 1000).append(" s |\n\n");
        md.append(upgrade ? "## Upgrade steps and time to recover\n\n" : "## Faults and time to recover\n\n");
        md.append("Recovery: from the injection to the first action proposed after the fault was over reaching a "
                + "settled receipt. ").append(recovery.describe()).append("\n\n");
        md.append("| # | at | ").append(upgrade ? "step" : "fault")
                .append(" | target | over after | recovered after | slowest action proposed during it |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (ChaosRun.FaultRecord f : faults) {
            md.append(String.format(Locale.ROOT, "| %d | t+%.1fs | %s | %s | %d ms | %s | %s |%n", f.index(),
                    f.injectedAtMs() / 1000.0, f.description(), f.target(), f.restoredAtMs() - f.injectedAtMs(),
                    f.recoveredAfterMs() == ChaosRun.FaultRecord.NOTHING_PROPOSED_AFTER ? "n/a (nothing proposed after it)"
                            : f.recoveredAfterMs() < 0 ? "n/a" : f.recoveredAfterMs() + " ms",
                    f.slowestDuringMs() < 0 ? "n/a" : f.slowestDuringMs() + " ms"));
        }
        md.append("\n## Checker counts\n\n```\n").append(result.describe()).append("```\n");
        Files.writeString(results.resolve("chaos-report.md"), md.toString(), StandardCharsets.UTF_8);
    }
}
