package io.actiongate.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /v1/openapi.json}: the OpenAPI 3.1 document of every {@code /v1} path, as committed in
 * {@code node/src/main/resources/io/actiongate/http/openapi.json}. Open like {@code /health}: it holds no data.
 */
final class OpenApiHandler implements CallHandler {

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
    public void handle(HttpCall exchange) throws IOException {
        try (exchange) {
            if (!PATH.equals(exchange.rawPath())) {
                Responses.json(exchange, 404, HttpJson.error("not_found", "no such resource"));
                return;
            }
            if (!"GET".equals(exchange.method()) && !"HEAD".equals(exchange.method())) {
                exchange.setHeader("Allow", "GET, HEAD");
                Responses.json(exchange, 405, HttpJson.error("method_not_allowed", "only GET is supported"));
                return;
            }
            Responses.bytes(exchange, 200, Responses.JSON, document);
        }
    }
}
