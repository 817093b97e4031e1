package io.actiongate.cli.commands;

import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.CommonClientConfigs;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.FactorReset;
import io.actiongate.approver.state.KafkaState;

/**
 * {@code actiongate approver reset-factors --org O --subject S}: removes every step-up factor of one person, who
 * then signs in fresh and enrols again. Audited (a log line and a record on the approver's state topic). The cluster,
 * the prefix, {@code approver.state.topic} and the client settings are resolved like every other command's
 * ({@code --config}, {@code ACTIONGATE_*}, {@code --kafka-config}, then the flags); the state topic is never created,
 * and a missing one fails the command (exit 1) with nothing written.
 */
@Command(name = "reset-factors", description = "Remove every step-up factor of one person (audited); they then "
        + "sign in fresh to enrol again.")
public final class ApproverResetFactorsCommand extends OperatorCommand {

    @Option(names = "--org", required = true, paramLabel = "ORG", description = "The person's organisation.")
    String org;

    @Option(names = "--subject", required = true, paramLabel = "SUBJECT",
            description = "The person's subject (the ID token's sub).")
    String subject;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (kept in the audit record).")
    String reason;

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Override
    int execute() throws Exception {
        String operator = System.getProperty("user.name", "?");
        String stateTopic = stateTopic(kafka.flatConfig(), kafka.topicPrefix());
        Map<String, String> client = new TreeMap<>();
        kafka.clientSettings().forEach((key, value) -> {
            if (!CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG.equals(key)) {
                client.put(key, String.valueOf(value));
            }
        });
        FactorReset.Result r;
        try {
            r = FactorReset.run(kafka.bootstrapServers(), client, stateTopic, org, subject, operator, reason);
        } catch (IllegalStateException e) {
            throw new CommandFailure(e.getMessage(), e);
        }
        out().println((r.hadFactors() ? "reset the step-up factors of " : "no step-up factors to reset for ")
                + subject + " in " + org + " on " + stateTopic + "; audit record " + r.auditKey());
        out().flush();
        return 0;
    }

    /**
     * The state topic the approval service uses under this configuration: {@code approver.state.topic}, else
     * {@code {topic.prefix}approver-state}, both resolved like every other command's settings.
     */
    static String stateTopic(Map<String, String> flat, String topicPrefix) {
        String configured = flat.get(ApproverConfig.STATE_TOPIC);
        return configured == null || configured.isBlank() ? KafkaState.defaultTopic(topicPrefix) : configured.strip();
    }
}
