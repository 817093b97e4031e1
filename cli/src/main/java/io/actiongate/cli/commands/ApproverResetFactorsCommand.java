package io.actiongate.cli.commands;

import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.approver.FactorReset;

/**
 * {@code actiongate approver reset-factors --org O --subject S}: removes every step-up factor of one person, who
 * then signs in fresh and enrols again. Audited (a log line and a record on the approver's state topic).
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
        FactorReset.Result r = FactorReset.run(kafka.bootstrapServers(), Map.of(), kafka.prefix, org, subject,
                operator, reason);
        out().println((r.hadFactors() ? "reset the step-up factors of " : "no step-up factors to reset for ")
                + subject + " in " + org + "; audit record " + r.auditKey());
        out().flush();
        return 0;
    }
}
