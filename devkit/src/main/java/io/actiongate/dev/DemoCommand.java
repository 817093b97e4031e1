package io.actiongate.dev;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.actiongate.cli.ConfigOptions;
import io.actiongate.cli.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code actiongate demo}: starts a private dev environment (free ports, so it runs beside an {@code actiongate dev})
 * and walks through the summary-email scenario, printing each receipt as it arrives and a summary at the end.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Walk through actiongate end to end on a private in-process environment: an approved summary email sent "
                    + "once, a redelivered proposal, a conflicting proposal, a forged approval, a provider 429 and a "
                    + "provider timeout that the reconciler settles.",
            "Exit code 0 when every step behaved as expected."
        })
final class DemoCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigOptions configOptions;

    @Override
    public Integer call() throws Exception {
        LocalLogging.quietForLocalEnvironment();
        PrintWriter out = spec.commandLine().getOut();
        out.println("Starting a private actiongate environment (Kafka, gate, executor, reconciler, approval service, "
                + "identity provider, sandboxes) ...");
        out.flush();
        DevStack stack = new DevStack(Map.of("http.port", "0"), false);
        List<DemoScenario.Step> steps;
        try (DevEnvironment env = DevEnvironment.start(
                new DevEnvironment.Settings(0, null, withoutOidc(configOptions.load(Map.of()))), List.of(stack))) {
            out.println("Kafka on " + env.bootstrapServers() + ", gate HTTP on 127.0.0.1:" + stack.node().httpPort()
                    + ", approval page " + stack.approver().publicUrl() + ", identity provider "
                    + stack.identityProvider().issuer());
            steps = new DemoScenario(env.bootstrapServers(), prefixOf(stack), stack.sandboxes(),
                    stack.approver().publicUrl(), stack.approverKey(), out).run();
        }
        out.println();
        DemoScenario.summary(steps).forEach(out::println);
        out.flush();
        return steps.stream().allMatch(DemoScenario.Step::ok) ? ExitCodes.OK : ExitCodes.ERROR;
    }

    /** The demo signs in at the identity provider it starts itself, whatever the configuration names. */
    private static Map<String, String> withoutOidc(Map<String, String> config) {
        Map<String, String> c = new java.util.HashMap<>(config);
        c.keySet().removeIf(k -> k.startsWith("approver.oidc."));
        return c;
    }

    private static String prefixOf(DevStack stack) {
        return stack.config().getOrDefault("topic.prefix", "actiongate.");
    }
}
