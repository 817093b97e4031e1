package io.actiongate.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A loopback proxy in front of a node for programs the test does not control (the Python and TypeScript examples):
 * every request and answer that passes is checked against the OpenAPI document, and any violation is kept for the
 * test to assert on.
 */
final class ContractProxy implements AutoCloseable {

    private static final Set<String> HOP = Set.of("connection", "content-length", "host", "transfer-encoding",
            "upgrade", "keep-alive", "expect");

    private final OpenApiContract contract;
    private final int target;
    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> exchanges = new CopyOnWriteArrayList<>();

    ContractProxy(OpenApiContract contract, int targetPort) throws IOException {
        this.contract = contract;
        this.target = targetPort;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(pool);
        server.createContext("/", this::forward);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    /** {@code METHOD path status} of every exchange that passed. */
    List<String> exchanges() {
        return List.copyOf(exchanges);
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            byte[] body = exchange.getRequestBody().readAllBytes();
            String text = new String(body, StandardCharsets.UTF_8);
            check(() -> contract.checkRequest(method, uri.getRawPath(), uri.getRawQuery(),
                    body.length == 0 ? null : text));
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target
                    + uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
                    .timeout(Duration.ofSeconds(90))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!HOP.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                    values.forEach(v -> request.header(name, v));
                }
            });
            HttpResponse<byte[]> response;
            try {
                response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            String contentType = response.headers().firstValue("Content-Type").orElse(null);
            exchanges.add(method + " " + uri.getRawPath() + " " + response.statusCode());
            check(() -> contract.checkResponse(method, uri.getRawPath(), response.statusCode(), contentType,
                    new String(response.body(), StandardCharsets.UTF_8)));
            response.headers().map().forEach((name, values) -> {
                if (!HOP.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
                    values.forEach(v -> exchange.getResponseHeaders().add(name, v));
                }
            });
            exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1
                    : response.body().length);
            if (response.body().length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(response.body());
                }
            }
        }
    }

    private void check(Runnable check) {
        try {
            check.run();
        } catch (AssertionError e) {
            violations.add(e.getMessage());
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
