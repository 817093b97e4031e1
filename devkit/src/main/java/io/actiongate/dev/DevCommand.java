package io.actiongate.dev;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.actiongate.broker.PortInUseException;
import io.actiongate.cli.ConfigOptions;
import io.actiongate.cli.ExitCodes;
import io.actiongate.topics.admin.TopicsReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code actiongate dev}: a complete local actiongate in one process, until Ctrl-C. */
@Command(name = "dev",
        mixinStandardHelpOptions = true,
        description = {
            "Start a complete local actiongate in this process and run until Ctrl-C: a single-node Kafka broker "
                    + "(KRaft) on 127.0.0.1, every topic, the gate, executor and reconciler, a sandbox webhook "
                    + "provider and mail server, stand-in kubectl and gh for the cli connector, a demo approver key, "
                    + "the demo policy, an in-process OpenID Connect provider (demo login alice@demo) and the approval "
                    + "service with the demo email waiting for approval.",
            "Nothing to install: no Docker, no separate Kafka."
        })
final class DevCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigOptions configOptions;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "9092",
            description = "Kafka client port on 127.0.0.1; 0 picks a free one (default ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Keep Kafka's data here across runs (default: a temporary directory, deleted on exit).")
    private Path dataDir;

    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch running = new CountDownLatch(1);
    private volatile DevEnvironment environment;

    @Override
    public Integer call() throws Exception {
        LocalLogging.quietForLocalEnvironment();
        PrintWriter out = spec.commandLine().getOut();
        DevEnvironment env;
        try {
            env = DevEnvironment.start(new DevEnvironment.Settings(port, dataDir, configOptions.load(Map.of())),
                    DevComponents.defaults());
        } catch (PortInUseException e) {
            running.countDown();
            throw new IllegalStateException(e.getMessage()
                    + " (another 'actiongate dev' or Kafka running? --port 0 picks a free port)", e);
        } catch (Exception e) {
            running.countDown(); // awaitRunning() returns null (never started) instead of waiting forever
            throw e;
        }
        environment = env;
        Thread hook = new Thread(() -> stop(out), "actiongate-dev-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        printSummary(out, env);
        running.countDown();
        stopped.await();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is what stopped us
        }
        return ExitCodes.OK;
    }

    /** Stops the environment (idempotent); called by the shutdown hook on Ctrl-C, and by tests. */
    void stop(PrintWriter out) {
        DevEnvironment env = environment;
        if (env != null && stopped.getCount() > 0) {
            out.println("Stopping actiongate dev ...");
            out.flush();
            env.close();
            out.println("Stopped.");
            out.flush();
        }
        stopped.countDown();
    }

    /** For tests: blocks until the environment runs (or was never started). */
    DevEnvironment awaitRunning() throws InterruptedException {
        running.await();
        return environment;
    }

    private static void printSummary(PrintWriter out, DevEnvironment env) {
        TopicsReport topics = env.topics();
        out.println();
        out.println("actiongate dev is running.");
        out.println();
        out.println("  Kafka bootstrap servers: " + env.bootstrapServers());
        out.println("  Kafka data directory:    " + env.broker().dataDir());
        out.println();
        out.println("  Topics:");
        topics.lines().forEach(line -> out.println("    " + line));
        out.println();
        out.println("Next steps:");
        out.println("  - point Kafka clients at " + env.bootstrapServers()
                + "  (e.g. ACTIONGATE_BOOTSTRAP_SERVERS=" + env.bootstrapServers() + ")");
        out.println("  - create the same topics on another cluster: ./actiongate topics create "
                + "--bootstrap-servers HOST:PORT");
        env.hints().forEach(hint -> out.println("  - " + hint));
        out.println();
        out.println("Press Ctrl-C to stop.");
        out.flush();
    }
}
