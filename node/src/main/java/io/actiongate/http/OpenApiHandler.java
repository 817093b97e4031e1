package io.actiongate.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * {@code GET /v1/openapi.json}: the OpenAPI 3.1 document of every {@code /v1} path, as committed in
 * {@code node/src/main/resources/io/actiongate/http/openapi.json}. Open like {@code /health}: it holds no data.
 */
final class OpenApiHandler implements HttpHandler {

    static final String PATH = "/v1/openapi.json";
    static final String RESOURCE = "openapi.json";

    private final byte[] document;

    OpenApiHandler() {
        try (InputStream in = OpenApiHandler.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            }
            document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!PATH.equals(exchange.getRequestURI().getRawPath())) {
                Responses.json(exchange, 404, HttpJson.error("not_found", "no such resource"));
                return;
            }
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                Responses.json(exchange, 405, HttpJson.error("method_not_allowed", "only GET is supported"));
                return;
            }
            Responses.bytes(exchange, 200, Responses.JSON, document);
        }
    }
}
