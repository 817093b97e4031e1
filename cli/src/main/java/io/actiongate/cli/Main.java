package io.actiongate.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import io.actiongate.node.JvmDefaults;

/** Entry point of the production jar: {@code java -jar actiongate-cli-*-all.jar --help}. */
@Command(name = "actiongate",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Runs AI-agent tool effects at most once, behind signed human approval, on Kafka.",
        synopsisSubcommandLabel = "COMMAND",
        commandListHeading = "%nCommands:%n",
        footer = {"", "Run 'actiongate COMMAND --help' for a command's options."})
public final class Main implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    private boolean verbose;

    /** Inherited by every subcommand, so both {@code actiongate --verbose dev} and {@code actiongate dev --verbose} work. */
    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "Print stack traces on errors and debug logs of actiongate.")
    void setVerbose(boolean verbose) {
        this.verbose = verbose;
        if (verbose) {
            Logging.enableDebug();
        }
    }

    boolean verbose() {
        return verbose;
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

    /** The configured command tree with every subcommand of {@link Subcommands}. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return commandLine(out, err, List.of());
    }

    /**
     * The command tree with {@code extraCommands} (picocli command objects) before those of {@link Subcommands}:
     * the dev kit adds {@code dev} and {@code demo} this way, so the production jar carries none of their code.
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err, List<Object> extraCommands) {
        CommandLine cl = new CommandLine(new Main());
        extraCommands.forEach(cl::addSubcommand);
        Subcommands.register(cl);
        everyCommandAnswersVersion(cl);
        ExitCodes.listInHelp(cl);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler(new ErrorHandler());
        cl.setParameterExceptionHandler(new UsageErrorHandler());
        return cl;
    }

    /**
     * {@code --version} on every command and subcommand ({@code run --version}, {@code topics create --version}),
     * added here once rather than in each command: a command without the option gets {@code -V, --version}, and every
     * command without a version of its own prints the root's.
     */
    static void everyCommandAnswersVersion(CommandLine cl) {
        CommandSpec command = cl.getCommandSpec();
        if (command.versionProvider() == null && command.version().length == 0) {
            command.versionProvider(new VersionProvider());
        }
        if (command.findOption("--version") == null) {
            OptionSpec.Builder version = OptionSpec.builder(command.findOption("-V") == null
                    ? new String[] {"-V", "--version"} : new String[] {"--version"});
            command.addOption(version.versionHelp(true).description("Print version information and exit.").build());
        }
        cl.getSubcommands().values().forEach(Main::everyCommandAnswersVersion);
    }

    /** {@code actiongate} without a command prints the usage and fails as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }
}
