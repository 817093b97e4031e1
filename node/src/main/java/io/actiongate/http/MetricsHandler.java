package io.actiongate.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** {@code GET /metrics}: the registry in the Prometheus text exposition format (version 0.0.4). */
final class MetricsHandler implements HttpHandler {

    static final String PATH = "/metrics";

    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = ExpositionFormats.init().getPrometheusTextFormatWriter();

    MetricsHandler(PrometheusRegistry registry) {
        this.registry = registry;
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
            if (!PATH.equals(exchange.getRequestURI().getPath())) {
                Responses.text(exchange, 404, "not-found");
                return;
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream(4096);
            writer.write(body, registry.scrape());
            Responses.bytes(exchange, 200, writer.getContentType(), body.toByteArray());
        }
    }
}
