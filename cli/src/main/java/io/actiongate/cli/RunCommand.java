package io.actiongate.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.actiongate.config.CommonConfig;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code actiongate run --config FILE --roles=gate,executor,reconciler}: one production process. */
@Command(name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run actiongate roles against an existing Kafka cluster until stopped (SIGTERM/Ctrl-C).",
            "Every process also serves HTTP: /v1/actions/{task_id}/{tool_call_id}, /metrics, /health/live, "
                    + "/health/ready."
        })
final class RunCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigOptions configOptions;

    @Option(names = "--roles", paramLabel = "ROLES", defaultValue = "all",
            description = "Comma list of gate, executor, reconciler, approver, notifier, mcp-gateway, or all (gate, "
                    + "executor and reconciler; default ${DEFAULT-VALUE}).")
    private String roles;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (overrides bootstrap.servers).")
    private String bootstrapServers;

    private final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Set<Role> parsedRoles = Role.parse(roles);
        Map<String, String> config = configOptions.load(
                bootstrapServers == null ? Map.of() : Map.of(CommonConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
        CommonConfig common = new CommonConfig(config);
        ConfigOptions.warnUnrecognized(common, spec.commandLine().getErr());

        ActiongateNode node = ActiongateNode.start(config, parsedRoles);
        Thread hook = new Thread(() -> {
            stop.countDown();
            node.close();
        }, "actiongate-run-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("actiongate running roles " + parsedRoles + " against "
                + common.bootstrapServers() + "; HTTP on port " + node.httpPort());
        out.flush();

        Optional<String> failure = Optional.empty();
        while (failure.isEmpty() && !stop.await(1, TimeUnit.SECONDS)) {
            failure = node.failure();
        }
        if (failure.isPresent()) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down
            }
            node.close();
            if (failure.get().startsWith(io.actiongate.serde.Release.current() + " stops: ")) {
                // a refused downgrade: its one line says what, where, who wrote it and what to do
                spec.commandLine().getErr().println(failure.get());
                spec.commandLine().getErr().flush();
                return ExitCodes.ERROR;
            }
            throw new IllegalStateException(failure.get());
        }
        return ExitCodes.OK;
    }
}
