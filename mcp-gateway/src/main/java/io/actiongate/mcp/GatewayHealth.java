package io.actiongate.mcp;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;

import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.runtime.HttpSurface.ProbeAnswer;

/**
 * The gateway's own probes and metrics, without a token: {@code GET /health/live} (200 while the process serves),
 * {@code GET /health/ready} (200 only while the policy view follows the policy topic and every upstream answers a
 * ping, else 503 naming what is not ready) and {@code GET /metrics} (Prometheus text format).
 */
final class GatewayHealth extends HttpServlet {

    static final String LIVE = "/health/live";
    static final String READY = "/health/ready";
    static final String METRICS = "/metrics";
    private static final long serialVersionUID = 1L;

    private final transient PolicyTopicReader policy;
    private final transient List<Upstream> upstreams;
    private final transient GatewayMetrics metrics;

    GatewayHealth(PolicyTopicReader policy, List<Upstream> upstreams, GatewayMetrics metrics) {
        this.policy = policy;
        this.upstreams = List.copyOf(upstreams);
        this.metrics = metrics;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getServletPath();
        if (METRICS.equals(path)) {
            response.setStatus(200);
            response.setContentType(PrometheusTextFormatWriter.CONTENT_TYPE);
            try (OutputStream out = response.getOutputStream()) {
                PrometheusTextFormatWriter.create().write(out, metrics.registry().scrape());
            }
            return;
        }
        ProbeAnswer answer = LIVE.equals(path) ? live() : ready();
        json(response, answer.status(), answer.body());
    }

    /** {@code /health/live}: the process serves. */
    ProbeAnswer live() {
        return new ProbeAnswer(200, "application/json", "{\"status\":\"live\"}");
    }

    /** {@code /health/ready}: the policy view follows and every upstream answered its last ping (cached 5 s). */
    ProbeAnswer ready() {
        StringBuilder notReady = new StringBuilder();
        if (!policy.following()) {
            notReady.append("\"policy view stopped\"");
        }
        for (Upstream upstream : upstreams) {
            if (!upstream.reachable()) {
                notReady.append(notReady.length() > 0 ? "," : "").append("\"upstream ").append(upstream.name())
                        .append(" does not answer\"");
            }
        }
        if (notReady.length() == 0) {
            return new ProbeAnswer(200, "application/json", "{\"status\":\"ready\"}");
        }
        return new ProbeAnswer(503, "application/json", "{\"status\":\"not ready\",\"reasons\":[" + notReady
                + "]}");
    }

    private static void json(HttpServletResponse response, int status, String body) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(bytes.length);
        try (OutputStream out = response.getOutputStream()) {
            out.write(bytes);
        }
    }
}
