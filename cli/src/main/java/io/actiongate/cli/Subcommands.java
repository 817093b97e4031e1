package io.actiongate.cli;

import picocli.CommandLine;

import io.actiongate.cli.commands.AclsCommand;
import io.actiongate.cli.commands.ApproverCommand;
import io.actiongate.cli.commands.DecideCommand;
import io.actiongate.cli.commands.KeysCommand;
import io.actiongate.cli.commands.McpCommand;
import io.actiongate.cli.commands.PolicyCommand;
import io.actiongate.cli.commands.ProposeCommand;
import io.actiongate.cli.commands.ReceiptsCommand;
import io.actiongate.cli.commands.StatusCommand;
import io.actiongate.cli.commands.StorageCommand;

/** The one place where commands join the {@code actiongate} command line: add yours with one line. */
final class Subcommands {

    private Subcommands() {
    }

    static void register(CommandLine root) {
        root.addSubcommand(new TopicsCommand());
        root.addSubcommand(new RunCommand());
        root.addSubcommand(new KeysCommand());
        root.addSubcommand(new ProposeCommand());
        root.addSubcommand(new DecideCommand());
        root.addSubcommand(new PolicyCommand());
        root.addSubcommand(new StatusCommand());
        root.addSubcommand(new ReceiptsCommand());
        root.addSubcommand(new StorageCommand());
        root.addSubcommand(new McpCommand());
        root.addSubcommand(new AclsCommand());
        root.addSubcommand(new ApproverCommand());
    }
}
