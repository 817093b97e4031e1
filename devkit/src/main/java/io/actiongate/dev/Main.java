package io.actiongate.dev;

import java.io.PrintWriter;
import java.util.List;

import io.actiongate.chaos.ChaosCommand;
import io.actiongate.node.JvmDefaults;
import picocli.CommandLine;

/**
 * Entry point of the dev kit's jar, which {@code ./actiongate} runs: the production command line of
 * {@link io.actiongate.cli.Main} plus {@code dev}, {@code demo} and {@code chaos}.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        JvmDefaults.apply(); // before anything starts the common pool
        int exitCode = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        System.exit(exitCode);
    }

    /** Runs one command line in-process and returns its exit code (tests call this). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return commandLine(out, err).execute(args);
    }

    /** The production command tree with {@code dev}, {@code demo} and {@code chaos} added. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return io.actiongate.cli.Main.commandLine(out, err, List.of(new DevCommand(), new DemoCommand(),
                new ChaosCommand()));
    }
}
