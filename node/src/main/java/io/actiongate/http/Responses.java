package io.actiongate.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;

/** Writing complete responses with a length, so connections can be kept alive. */
final class Responses {

    static final String JSON = "application/json";
    static final String TEXT = "text/plain; charset=utf-8";

    private Responses() {
    }

    static void json(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes;
        try {
            bytes = HttpJson.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IOException("cannot render JSON", e);
        }
        bytes(exchange, status, JSON, bytes);
    }

    static void text(HttpExchange exchange, int status, String body) throws IOException {
        bytes(exchange, status, TEXT, (body + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static void bytes(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
