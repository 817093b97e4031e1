package io.actiongate.cli.commands;

import picocli.CommandLine.Command;

/** {@code actiongate keys ...}: approver key management. */
@Command(name = "keys", description = "Manage Ed25519 approver keys.",
        subcommands = KeysGenerateCommand.class)
public final class KeysCommand extends OperatorCommand {

    @Override
    int execute() {
        spec.commandLine().usage(err());
        return 2;
    }
}
