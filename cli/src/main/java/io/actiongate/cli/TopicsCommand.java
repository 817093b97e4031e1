package io.actiongate.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code actiongate topics ...}. */
@Command(name = "topics",
        mixinStandardHelpOptions = true,
        description = "Manage actiongate's Kafka topics.",
        synopsisSubcommandLabel = "COMMAND",
        subcommands = TopicsCreateCommand.class)
final class TopicsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }
}
