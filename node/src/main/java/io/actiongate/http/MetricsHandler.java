package io.actiongate.http;

import java.io.IOException;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * {@code GET /metrics}: the registry through the Prometheus library's scrape handler, which negotiates the format
 * from {@code Accept} (OpenMetrics 1.0 for {@code application/openmetrics-text}, the Prometheus text format 0.0.4
 * otherwise, protobuf on request), compresses with gzip when asked, and honours {@code ?name[]=} filters.
 */
final class MetricsHandler implements HttpHandler {

    static final String PATH = "/metrics";

    private final HttpHandler scrape;

    MetricsHandler(PrometheusRegistry registry) {
        this.scrape = new io.prometheus.metrics.exporter.httpserver.MetricsHandler(registry);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            try (exchange) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                Responses.text(exchange, 405, "method-not-allowed");
            }
            return;
        }
        if (!PATH.equals(exchange.getRequestURI().getPath())) {
            try (exchange) {
                Responses.text(exchange, 404, "not-found");
            }
            return;
        }
        scrape.handle(exchange);
    }
}
