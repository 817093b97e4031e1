package io.actiongate.http;

import java.io.IOException;
import java.util.function.BooleanSupplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/** {@code /health/live} answers 200 while the process serves; {@code /health/ready} only while the check holds. */
final class HealthHandler implements HttpHandler {

    static final String LIVE = "/health/live";
    static final String READY = "/health/ready";

    private final BooleanSupplier ready;

    HealthHandler(BooleanSupplier ready) {
        this.ready = ready;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!"GET".equals(method) && !"HEAD".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                Responses.text(exchange, 405, "method-not-allowed");
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case LIVE -> Responses.text(exchange, 200, "live");
                case READY -> {
                    if (isReady()) {
                        Responses.text(exchange, 200, "ready");
                    } else {
                        Responses.text(exchange, 503, "unready");
                    }
                }
                default -> Responses.text(exchange, 404, "not-found");
            }
        }
    }

    private boolean isReady() {
        try {
            return ready.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
