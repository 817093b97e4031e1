package io.actiongate.cli;

import picocli.CommandLine;

/** The one place where commands join the {@code actiongate} command line: add yours with one line. */
final class Subcommands {

    private Subcommands() {
    }

    static void register(CommandLine root) {
        root.addSubcommand(new DevCommand());
        root.addSubcommand(new TopicsCommand());
    }
}
