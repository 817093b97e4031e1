package io.actiongate.cli.commands;

import picocli.CommandLine.Command;

/** {@code actiongate approver ...}: operating the approval service's own state. */
@Command(name = "approver", description = "Operate the approval service (step-up factors).",
        subcommands = ApproverResetFactorsCommand.class)
public final class ApproverCommand extends OperatorCommand {

    @Override
    int execute() {
        spec.commandLine().usage(err());
        return 2;
    }
}
