package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.runtime.HttpLimits;

/**
 * The node's HTTP API against an attacker's slow clients: on the JDK server four connections that never finished
 * their headers held its four threads, and {@code /health/live} stopped answering.
 */
class SlowClientsTest {

    private static final int SLOW_CLIENTS = 32;
    private static final String ACTION = "/v1/actions/T-1/c-1";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final FakeStateQuery query = new FakeStateQuery();
    private final List<Socket> sockets = new ArrayList<>();
    private GateHttpServer server;

    @AfterEach
    void stop() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(HttpLimits limits) {
        query.local.put("T-1/c-1", new ObjectMapper().createObjectNode().put("status", "WAITING_APPROVAL")
                .put("task_id", "T-1").put("tool_call_id", "c-1"));
        server = new GateHttpServer(new HttpServerConfig("127.0.0.1", 0, HttpSecurity.OPEN, limits), query,
                new PrometheusRegistry(), () -> true).start();
    }

    private OutputStream slowClient(String head) throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        s.setSoTimeout(15_000);
        sockets.add(s);
        OutputStream out = s.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return out;
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswerHealthAndANormalRequestWhileSlowLorisConnectionsSendHeadersByteByByte() throws Exception {
        start(HttpLimits.DEFAULTS);
        List<OutputStream> slow = new ArrayList<>();
        for (int i = 0; i < SLOW_CLIENTS; i++) {
            slow.add(slowClient("GET " + ACTION + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
        }
        for (int round = 0; round < 5; round++) {
            for (OutputStream out : slow) {
                out.write('X');
                out.flush();
            }
            Thread.sleep(100);
        }

        long started = System.nanoTime();
        HttpResponse<String> live = get("/health/live");
        HttpResponse<String> ready = get("/health/ready");
        HttpResponse<String> action = get(ACTION);

        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).isEqualTo("live\n");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(action.statusCode()).isEqualTo(200);
        assertThat(action.body()).contains("WAITING_APPROVAL");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void shouldDropAConnectionWhoseHeadersDoNotCompleteWithinTheHeaderTimeout() throws Exception {
        start(new HttpLimits(16, 128, 512, 300, 10_000, 60_000));
        OutputStream out = slowClient("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        InputStream in = sockets.get(0).getInputStream();
        long started = System.nanoTime();
        boolean closed = false;
        for (int i = 0; i < 40 && !closed; i++) {
            try {
                out.write('X');
                out.flush();
                Thread.sleep(200);
                sockets.get(0).setSoTimeout(1);
                closed = in.read() == -1;
            } catch (java.net.SocketTimeoutException e) {
                // still open
            } catch (java.io.IOException e) {
                closed = true;
            }
        }

        assertThat(closed).as("closed by the server").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void shouldKeepAnsweringWhileManyLongPollsWaitBecauseTheyHoldNoThread() throws Exception {
        start(HttpLimits.DEFAULTS);
        query.local.put("T-2/c-2", new ObjectMapper().createObjectNode().put("status", "WAITING_APPROVAL"));
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        // more long polls than the server has threads
        for (int i = 0; i < 40; i++) {
            polls.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/v1/actions/T-2/c-2?wait=30s")).timeout(Duration.ofSeconds(40)).GET().build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        Thread.sleep(500);

        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        assertThat(get(ACTION).statusCode()).isEqualTo(200);
        assertThat(polls).noneMatch(CompletableFuture::isDone);
        // the action settles: every waiting poll is answered (read on a timer here, without a receipts consumer)
        query.local.put("T-2/c-2", new ObjectMapper().createObjectNode().put("status", "SUCCEEDED"));
        for (var poll : polls) {
            assertThat(poll.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }
}
