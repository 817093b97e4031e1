package io.actiongate.cli.commands;

import java.util.List;

/** The operator subcommands, for the root command to register. */
public final class OperatorCommands {

    private OperatorCommands() {
    }

    /** A fresh instance of each operator subcommand. */
    public static List<Object> all() {
        return List.of(new KeysCommand(), new DecideCommand(), new ProposeCommand(), new PolicyCommand(),
                new StatusCommand(), new ReceiptsCommand());
    }
}
