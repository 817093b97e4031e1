package io.actiongate.connector.x;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.testing.ConnectorContract;
import io.actiongate.connector.testing.LocalHttpServer;
import org.junit.jupiter.api.AfterEach;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** The connector contract for x, against a loopback stand-in for {@code POST /2/tweets} and the user timeline. */
class XContractTest extends ConnectorContract {

    private final LocalHttpServer server = new LocalHttpServer();
    private final List<String> posts = new CopyOnWriteArrayList<>();
    private volatile Scenario scenario = Scenario.SUCCEEDS;

    XContractTest() {
        server.answer(exchange -> {
            if (exchange.getRequestMethod().equals("GET")) {
                ArrayNode data = Json.MAPPER.createArrayNode();
                for (int i = posts.size() - 1; i >= 0; i--) {
                    data.addObject().put("id", String.valueOf(1_000_000 + i)).put("text", posts.get(i));
                }
                ObjectNode body = Json.MAPPER.createObjectNode();
                body.set("data", data);
                LocalHttpServer.respond(exchange, 200, Map.of(), body.toString());
                return;
            }
            // LocalHttpServer has read the body into its record before calling this handler
            List<LocalHttpServer.Recorded> requests = server.requests();
            String text = Json.object(requests.get(requests.size() - 1).body())
                    .map(o -> o.get("text").asText()).orElseThrow();
            posts.add(text);
            String id = String.valueOf(1_000_000 + posts.size() - 1);
            switch (scenario) {
                case HANGS -> {
                    Thread.sleep(3_000);
                    exchange.close();
                }
                case ANSWERS_UNPROVABLY -> LocalHttpServer.respond(exchange, 201, Map.of(), "{\"meta\":{}}");
                default -> LocalHttpServer.respond(exchange, 201, Map.of(),
                        "{\"data\":{\"id\":\"" + id + "\",\"text\":" + Json.MAPPER.valueToTree(text) + "}}");
            }
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Override
    protected ConnectorFactory factory() {
        return new XConnectorFactory();
    }

    @Override
    protected Map<String, String> settings(Scenario scenario) {
        this.scenario = scenario;
        return Map.of("base-url", server.baseUrl(), "credential", "file:/run/secrets/x-token", "user-id", "42",
                "response-timeout-ms", "500");
    }

    @Override
    protected Map<String, String> secrets() {
        return Map.of("file:/run/secrets/x-token", "contract-x-token");
    }

    @Override
    protected Optional<Example> read() {
        return Optional.empty();
    }

    @Override
    protected Example effect() {
        return new Example("post", "{\"text\":\"Release 1.2 is out\"}");
    }

    @Override
    protected List<Example> refused() {
        return List.of();
    }

    @Override
    protected Example unsupported() {
        return new Example("delete_post", "{\"id\":\"1\"}");
    }

    @Override
    protected List<Example> invalid() {
        return List.of(new Example("post", "{\"text\":\"\"}"),
                new Example("post", "{\"text\":\"" + "x".repeat(281) + "\"}"),
                new Example("post", "{\"text\":\"hi\",\"media\":{\"ids\":[\"1\"]}}"));
    }

    @Override
    protected long effectsApplied() {
        return posts.size();
    }

    @Override
    protected boolean lookupConfirmsEffects() {
        return true;
    }
}
