package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.MockConsumer;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.policy.PolicyTopicReader;

/** The probes on their own: not ready, naming why, while the policy view does not follow or an upstream is down. */
class GatewayHealthTest {

    private final Server jetty = new Server();
    private PolicyTopicReader policy;
    private Upstream down;

    @AfterEach
    void stop() throws Exception {
        jetty.stop();
        if (down != null) {
            down.close();
        }
        if (policy != null) {
            policy.close();
        }
    }

    private int start(GatewayHealth health) throws Exception {
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(health), GatewayHealth.LIVE);
        context.addServlet(new ServletHolder(health), GatewayHealth.READY);
        context.addServlet(new ServletHolder(health), GatewayHealth.METRICS);
        jetty.setHandler(context);
        jetty.start();
        return connector.getLocalPort();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldBeLiveButNotReadyWhileThePolicyViewStoppedAndAnUpstreamIsDown() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        policy = new PolicyTopicReader(new MockConsumer<>("earliest"), "t.policy", null);
        down = new Upstream("notes", "mcp", Map.of(), "http://127.0.0.1:" + closed, "/mcp", Duration.ofSeconds(2));
        GatewayMetrics metrics = new GatewayMetrics(new PrometheusRegistry());
        metrics.call("notes_lookup", "read");
        int port = start(new GatewayHealth(policy, List.of(down), metrics));

        assertThat(get(port, GatewayHealth.LIVE).statusCode()).isEqualTo(200);
        HttpResponse<String> ready = get(port, GatewayHealth.READY);
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("policy view stopped", "upstream notes does not answer");
        assertThat(get(port, GatewayHealth.METRICS).body())
                .contains("actiongate_mcp_gateway_calls_total{outcome=\"read\",tool=\"notes_lookup\"} 1.0");
    }
}
