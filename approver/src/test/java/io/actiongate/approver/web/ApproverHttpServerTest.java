package io.actiongate.approver.web;

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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP surface against slow and hostile clients: what the JDK server with four workers did not survive. */
class ApproverHttpServerTest {

    private static final int SLOW_CLIENTS = 64;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Socket> sockets = new ArrayList<>();
    private ApproverHttpServer server;

    @AfterEach
    void tearDown() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private ApproverHttpServer start(HttpLimits limits) {
        server = new ApproverHttpServer("127.0.0.1", 0, limits, () -> true,
                ex -> ex.html(200, "<p>" + ex.field("x") + "</p>")).start();
        return server;
    }

    private Socket open() throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        s.setSoTimeout(15_000);
        sockets.add(s);
        return s;
    }

    private HttpResponse<String> get(String path, Duration timeout) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswerTheLivenessProbeWhileManyClientsNeverFinishTheirHeaders() throws Exception {
        start(new HttpLimits(8, 16, 512, 30_000, 10_000, 60_000));
        for (int i = 0; i < SLOW_CLIENTS; i++) {
            OutputStream out = open().getOutputStream();
            out.write(("GET /queue HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-" + i + ": ").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        long started = System.nanoTime();
        HttpResponse<String> live = get("/health/live", Duration.ofSeconds(3));
        HttpResponse<String> ready = get("/health/ready", Duration.ofSeconds(3));

        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).isEqualTo("ok\n");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
        // and the pages still answer too: a slow head holds no worker
        assertThat(get("/anything", Duration.ofSeconds(3)).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldCloseAConnectionWhoseHeadDoesNotCompleteWithinTheDeadlineEvenIfItTrickles() throws Exception {
        start(new HttpLimits(8, 16, 512, 1_000, 10_000, 60_000));
        Socket s = open();
        OutputStream out = s.getOutputStream();
        out.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
        long started = System.nanoTime();
        boolean closed = false;
        // one header byte every 200 ms: the idle timeout never fires, the head deadline does
        for (int i = 0; i < 40 && !closed; i++) {
            try {
                out.write('X');
                out.flush();
                Thread.sleep(200);
            } catch (java.io.IOException e) {
                closed = true;
            }
            if (!closed) {
                s.setSoTimeout(1);
                try {
                    closed = s.getInputStream().read() == -1;
                } catch (java.net.SocketTimeoutException e) {
                    // still open
                } catch (java.io.IOException e) {
                    closed = true;
                }
            }
        }

        assertThat(closed).as("closed by the server").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void shouldRefuseAFormBodyThatDoesNotArriveWithinTheDeadline() throws Exception {
        start(new HttpLimits(8, 16, 512, 5_000, 1_000, 60_000));
        Socket s = open();
        OutputStream out = s.getOutputStream();
        out.write(("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 1000\r\n\r\nx=1").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        long started = System.nanoTime();

        InputStream in = s.getInputStream();
        String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);

        assertThat(status).isEqualTo("HTTP/1.1 408");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void shouldRefuseAnOversizedForm() throws Exception {
        start(HttpLimits.DEFAULTS);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                        + "/x")).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("x=" + "a".repeat(70 * 1024))).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void shouldRefuseWithServiceUnavailableBeyondThePagesAtOnceAndWaitingWhileProbesStillAnswer() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger busy = new java.util.concurrent.atomic.AtomicInteger();
        server = new ApproverHttpServer("127.0.0.1", 0, new HttpLimits(8, 1, 512, 10_000, 10_000, 60_000),
                () -> true, ex -> {
                    busy.incrementAndGet();
                    release.await(20, java.util.concurrent.TimeUnit.SECONDS);
                    ex.html(200, "done");
                }).start();
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            slow.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/p" + i))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (busy.get() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(busy.get()).as("pages at once: threads.max - 4").isEqualTo(4);
        Thread.sleep(300); // the fifth waits for a turn

        HttpResponse<String> refused = get("/p-extra", Duration.ofSeconds(5));
        HttpResponse<String> live = get("/health/live", Duration.ofSeconds(3));
        release.countDown();

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(live.statusCode()).isEqualTo(200);
        for (var f : slow) {
            assertThat(f.get(20, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldReadLimitsAndRefuseNonsense() {
        HttpLimits l = HttpLimits.from(java.util.Map.of(HttpLimits.THREADS_MAX, "24",
                HttpLimits.HEADER_TIMEOUT_MS, "3000"));
        assertThat(l.maxThreads()).isEqualTo(24);
        assertThat(l.headerTimeoutMs()).isEqualTo(3000);
        assertThat(l.bodyTimeoutMs()).isEqualTo(HttpLimits.DEFAULTS.bodyTimeoutMs());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpLimits.from(java.util.Map.of(
                HttpLimits.THREADS_MAX, "4"))).hasMessageContaining(HttpLimits.THREADS_MAX);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpLimits.from(java.util.Map.of(
                HttpLimits.BODY_TIMEOUT_MS, "soon"))).hasMessageContaining(HttpLimits.BODY_TIMEOUT_MS);
    }
}
