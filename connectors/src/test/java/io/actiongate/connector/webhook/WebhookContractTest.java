package io.actiongate.connector.webhook;

import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.testing.ConnectorContract;
import io.actiongate.connector.testing.LocalHttpServer;
import org.junit.jupiter.api.AfterEach;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The connector contract for webhook, against a loopback provider that keeps one effect per idempotency key. */
class WebhookContractTest extends ConnectorContract {

    private static final String PATH = "/hooks";

    private final LocalHttpServer server = new LocalHttpServer();
    private final Set<String> applied = ConcurrentHashMap.newKeySet();
    private volatile Scenario scenario = Scenario.SUCCEEDS;

    WebhookContractTest() {
        server.answer(exchange -> {
            String path = exchange.getRequestURI().getRawPath();
            if (exchange.getRequestMethod().equals("GET") && path.startsWith(PATH + "/idempotency/")) {
                String key = URLDecoder.decode(path.substring((PATH + "/idempotency/").length()),
                        StandardCharsets.UTF_8);
                if (applied.contains(key)) {
                    LocalHttpServer.respond(exchange, 200, Map.of(), "{\"status\":\"applied\",\"id\":\"ct-" + key + "\"}");
                } else {
                    LocalHttpServer.respond(exchange, 404, Map.of(), "{\"status\":\"unknown\"}");
                }
                return;
            }
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            applied.add(key);
            switch (scenario) {
                case HANGS -> {
                    Thread.sleep(3_000);
                    exchange.close();
                }
                case ANSWERS_UNPROVABLY -> LocalHttpServer.respond(exchange, 200, Map.of(), "{\"ok\":true}");
                default -> LocalHttpServer.respond(exchange, 200, Map.of(),
                        "{\"status\":\"applied\",\"id\":\"ct-" + key + "\"}");
            }
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Override
    protected ConnectorFactory factory() {
        return new WebhookConnectorFactory();
    }

    @Override
    protected Map<String, String> settings(Scenario scenario) {
        this.scenario = scenario;
        return Map.of("base-url", server.baseUrl() + PATH,
                "operations", "notify",
                "read-operations", "status",
                "credential", "env:WEBHOOK_TOKEN",
                "response-timeout-ms", "500",
                "max-input-bytes", "4096");
    }

    @Override
    protected Map<String, String> secrets() {
        return Map.of("env:WEBHOOK_TOKEN", "contract-webhook-token");
    }

    @Override
    protected Optional<Example> read() {
        return Optional.of(new Example("status", "{}"));
    }

    @Override
    protected Example effect() {
        return new Example("notify", "{\"text\":\"deploy finished\"}");
    }

    @Override
    protected List<Example> refused() {
        return List.of();
    }

    @Override
    protected Example unsupported() {
        return new Example("delete_everything", "{}");
    }

    @Override
    protected List<Example> invalid() {
        return List.of(new Example("notify", "[\"not an object\"]"),
                new Example("notify", "{\"text\":\"" + "x".repeat(5_000) + "\"}"),
                new Example("notify", "{\"a\":1,\"a\":2}"));
    }

    @Override
    protected long effectsApplied() {
        return applied.size();
    }

    @Override
    protected boolean lookupConfirmsEffects() {
        return true;
    }
}
