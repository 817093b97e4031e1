package io.actiongate.cli.commands;

import java.io.PrintWriter;
import java.io.StringWriter;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs operator commands under a root like the real one (with {@code --verbose}) and captures their output. */
final class Cli {

    @Command(name = "actiongate")
    static final class Root {
        @Option(names = "--verbose")
        boolean verbose;
    }

    record Result(int exitCode, String out, String err) {
    }

    private Cli() {
    }

    static Result run(String... args) {
        CommandLine root = new CommandLine(new Root());
        OperatorCommands.all().forEach(root::addSubcommand);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        root.setOut(new PrintWriter(out, true));
        root.setErr(new PrintWriter(err, true));
        int code = root.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
