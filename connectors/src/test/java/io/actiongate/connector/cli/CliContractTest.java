package io.actiongate.connector.cli;

import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.testing.ConnectorContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.actiongate.connector.cli.CliClassifierTest.input;

/** The connector contract for cli, run against the shell stand-ins for kubectl and gh. */
class CliContractTest extends ConnectorContract {

    @TempDir
    Path dir;

    private StandInTools tools;

    @BeforeEach
    void writeStandIns() {
        tools = new StandInTools(dir);
    }

    @Override
    protected ConnectorFactory factory() {
        return new CliConnectorFactory();
    }

    @Override
    protected Map<String, String> settings(Scenario scenario) {
        Map<String, String> s = new HashMap<>(tools.settings());
        s.put("timeout-ms", "1000");
        s.put("gh.secret-env.GH_TOKEN", "file:/run/secrets/gh-token");
        switch (scenario) {
            case HANGS -> s.put("kubectl.env.STANDIN_MODE", "hang");
            case ANSWERS_UNPROVABLY -> s.put("kubectl.env.STANDIN_MODE", "killed");
            default -> { }
        }
        return s;
    }

    @Override
    protected Map<String, String> secrets() {
        return Map.of("file:/run/secrets/gh-token", "ghs-contract-token");
    }

    @Override
    protected Optional<Example> read() {
        return Optional.of(new Example("kubectl", input("kubectl -n prod get pods")));
    }

    @Override
    protected Example effect() {
        return new Example("kubectl", input("kubectl -n prod delete pod web-1"));
    }

    @Override
    protected List<Example> refused() {
        return List.of(new Example("kubectl", input("kubectl config view")),
                new Example("kubectl", input("kubectl get pods -w")),
                new Example("gh", input("gh auth token")));
    }

    @Override
    protected Example unsupported() {
        return new Example("helm", "{\"argv\":[\"helm\",\"list\"]}");
    }

    @Override
    protected List<Example> invalid() {
        return List.of(new Example("kubectl", "{\"argv\":[\"kubectl\",\"delete\",\"pod\",\"web\\u0007\"]}"),
                new Example("kubectl", input("kubectl delete pod" + " x".repeat(CliClassifier.MAX_ARGS))),
                new Example("kubectl", "{\"argv\":[\"kubectl\",\"delete\",\"pod\",\"web\"],\"env\":{\"A\":\"b\"}}"));
    }

    @Override
    protected long effectsApplied() {
        return tools.effects();
    }

    @Override
    protected boolean lookupConfirmsEffects() {
        return true;
    }
}
