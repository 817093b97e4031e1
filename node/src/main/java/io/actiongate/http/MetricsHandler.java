package io.actiongate.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collections;
import java.util.Enumeration;

import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * {@code GET /metrics}: the registry through the Prometheus library's scrape handler, which negotiates the format
 * from {@code Accept} (OpenMetrics 1.0 for {@code application/openmetrics-text}, the Prometheus text format 0.0.4
 * otherwise, protobuf on request), compresses with gzip when asked, and honours {@code ?name[]=} filters.
 */
final class MetricsHandler implements CallHandler {

    static final String PATH = "/metrics";

    private final PrometheusScrapeHandler scrape;

    MetricsHandler(PrometheusRegistry registry) {
        this.scrape = new PrometheusScrapeHandler(registry);
    }

    @Override
    public void handle(HttpCall exchange) throws IOException {
        try (exchange) {
            String method = exchange.method();
            if (!"GET".equals(method) && !"HEAD".equals(method)) {
                exchange.setHeader("Allow", "GET, HEAD");
                Responses.text(exchange, 405, "method-not-allowed");
                return;
            }
            if (!PATH.equals(exchange.rawPath())) {
                Responses.text(exchange, 404, "not-found");
                return;
            }
            Scrape scraped = new Scrape(exchange);
            scrape.handleRequest(scraped);
            scraped.close();
        }
    }

    /** The scrape handler's view of one call: the body is collected, then sent with its length. */
    private static final class Scrape implements PrometheusHttpExchange, PrometheusHttpRequest,
            PrometheusHttpResponse {
        private final HttpCall call;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private int status = 200;
        private String contentType = Responses.TEXT;

        Scrape(HttpCall call) {
            this.call = call;
        }

        @Override
        public PrometheusHttpRequest getRequest() {
            return this;
        }

        @Override
        public PrometheusHttpResponse getResponse() {
            return this;
        }

        @Override
        public String getQueryString() {
            return call.rawQuery();
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            return Collections.enumeration(call.request().getHeaders().getValuesList(name));
        }

        @Override
        public String getMethod() {
            return call.method();
        }

        @Override
        public String getRequestPath() {
            return call.rawPath();
        }

        @Override
        public void setHeader(String name, String value) {
            if ("Content-Type".equalsIgnoreCase(name)) {
                contentType = value;
            } else if (!"Content-Length".equalsIgnoreCase(name)) {
                call.setHeader(name, value);
            }
        }

        @Override
        public OutputStream sendHeadersAndGetBody(int statusCode, int contentLength) {
            this.status = statusCode;
            return body;
        }

        @Override
        public void handleException(IOException e) throws IOException {
            throw e;
        }

        @Override
        public void handleException(RuntimeException e) {
            throw e;
        }

        @Override
        public void close() {
            if (!call.sent()) {
                call.send(status, contentType, body.toByteArray());
            }
        }
    }
}
