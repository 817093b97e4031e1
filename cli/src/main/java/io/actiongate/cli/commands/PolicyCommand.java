package io.actiongate.cli.commands;

import picocli.CommandLine.Command;

/** {@code actiongate policy put|delete}. */
@Command(name = "policy", description = "Write or delete control-plane policy records.",
        subcommands = {PolicyPutCommand.class, PolicyDeleteCommand.class})
public final class PolicyCommand extends OperatorCommand {

    @Override
    int execute() {
        spec.commandLine().usage(err());
        return 2;
    }
}
