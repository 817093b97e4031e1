package io.actiongate.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/** Writing complete responses with a length, so connections can be kept alive. */
final class Responses {

    static final String JSON = "application/json";
    static final String TEXT = "text/plain; charset=utf-8";

    private Responses() {
    }

    static void json(HttpCall exchange, int status, JsonNode body) throws IOException {
        byte[] bytes;
        try {
            bytes = HttpJson.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IOException("cannot render JSON", e);
        }
        bytes(exchange, status, JSON, bytes);
    }

    static void text(HttpCall exchange, int status, String body) {
        bytes(exchange, status, TEXT, (body + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static void bytes(HttpCall exchange, int status, String contentType, byte[] body) {
        exchange.send(status, contentType, body);
    }
}
