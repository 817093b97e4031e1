package io.actiongate.cli;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import io.actiongate.config.CommonConfig;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.topics.admin.TopicsCreator;
import io.actiongate.topics.admin.TopicsReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code actiongate topics create}: make every topic of the contract; report, never change, existing ones. */
@Command(name = "create",
        mixinStandardHelpOptions = true,
        description = {
            "Create every actiongate topic on a Kafka cluster. Safe to run again: existing topics are left as they "
                    + "are and compared with their specification (partitions, cleanup.policy, retention.ms)."
        })
final class TopicsCreateCommand implements Callable<Integer>, ExitCodes.Own {

    @Override
    public int[] ownExitCodes() {
        return new int[] {ExitCodes.DRIFT};
    }

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigOptions configOptions;

    @Option(names = {"-b", "--bootstrap-servers"}, paramLabel = "HOST:PORT[,HOST:PORT]",
            description = "Kafka brokers (config key bootstrap.servers, default "
                    + CommonConfig.BOOTSTRAP_SERVERS_DEFAULT + ").")
    private String bootstrapServers;

    @Option(names = "--prefix", paramLabel = "PREFIX",
            description = "Topic name prefix (config key topic.prefix, default actiongate.).")
    private String prefix;

    @Option(names = "--partitions", paramLabel = "N",
            description = "Partitions of each new topic (config key topic.partitions, default 12).")
    private Integer partitions;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Replication factor of each new topic (config key topic.replication.factor, default 1).")
    private Integer replicationFactor;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "Give up when Kafka does not answer within this time (default ${DEFAULT-VALUE}).")
    private long timeoutMs;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, String> overrides = new HashMap<>();
        overrides.put(CommonConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        overrides.put(CommonConfig.TOPIC_PREFIX_CONFIG, prefix);
        overrides.put(CommonConfig.TOPIC_PARTITIONS_CONFIG, partitions == null ? null : partitions.toString());
        overrides.put(CommonConfig.TOPIC_REPLICATION_FACTOR_CONFIG,
                replicationFactor == null ? null : replicationFactor.toString());
        CommonConfig config = new CommonConfig(configOptions.load(overrides));
        ConfigOptions.warnUnrecognized(config, err);

        int timeout = (int) Math.min(timeoutMs, Integer.MAX_VALUE);
        TopicsReport report;
        try (Admin admin = KafkaClients.of(config.kafkaClientProperties()).admin("actiongate-cli-topics")
                .defaultTo(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeout)
                .defaultTo(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout).create()) {
            report = new TopicsCreator(admin, timeoutMs).create(TopicsCreator.Plan.of(config.topicPrefix(),
                    config.topicPartitions(), config.topicReplicationFactor()));
        }
        report.lines().forEach(out::println);
        out.flush();
        if (report.hasDrift()) {
            err.println("error: " + report.drifted().size() + " topic(s) differ from the specification and were "
                    + "left unchanged on " + config.bootstrapServers() + "; fix or recreate them.");
            err.flush();
            return ExitCodes.DRIFT;
        }
        return ExitCodes.OK;
    }
}
