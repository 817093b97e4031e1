package io.actiongate.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.actiongate.testing.RawHttp;

/** The one HTTP server of every role, attacked as a slow or greedy client would. */
class HttpSurfaceTest {

    private static final int SLOW_CLIENTS = 64;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Socket> sockets = new ArrayList<>();
    private HttpSurface server;

    @AfterEach
    void tearDown() throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static Handler answering(String text) {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(200);
                response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        };
    }

    private HttpSurface.Builder surface(HttpLimits limits) {
        return HttpSurface.builder("test").bind("127.0.0.1", 0).limits(limits)
                .probe("/health/live", () -> HttpSurface.ProbeAnswer.text(200, "live\n"))
                .app(answering("page"));
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
    void shouldAnswerTheProbeAndANormalRequestWhileManyClientsSendTheirHeadersByteByByte() throws Exception {
        server = surface(new HttpLimits(8, 16, 512, 30_000, 10_000, 60_000)).build().start();
        List<OutputStream> slow = new ArrayList<>();
        for (int i = 0; i < SLOW_CLIENTS; i++) {
            OutputStream out = open().getOutputStream();
            out.write(("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            slow.add(out);
        }
        // each slow client goes on sending one header byte at a time, never finishing its head
        for (int round = 0; round < 3; round++) {
            for (OutputStream out : slow) {
                out.write('X');
                out.flush();
            }
            Thread.sleep(50);
        }

        long started = System.nanoTime();
        HttpResponse<String> live = get("/health/live", Duration.ofSeconds(3));
        HttpResponse<String> page = get("/page", Duration.ofSeconds(3));

        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).isEqualTo("live\n");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).isEqualTo("page");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void shouldCloseAConnectionWhoseHeadDoesNotCompleteWithinTheDeadlineEvenIfItTrickles() throws Exception {
        server = surface(new HttpLimits(8, 16, 512, 1_000, 10_000, 60_000)).build().start();
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
    void shouldRefuseBeyondTheTurnsAndTheQueueWhileProbesAndAsyncRoutesStillAnswer() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger busy = new AtomicInteger();
        List<Callback> parked = new java.util.concurrent.CopyOnWriteArrayList<>();
        server = HttpSurface.builder("test").bind("127.0.0.1", 0).limits(new HttpLimits(8, 1, 512, 10_000, 10_000,
                        60_000))
                .probe("/health/live", () -> HttpSurface.ProbeAnswer.text(200, "live\n"))
                // a long poll: answered later from a callback, holding no thread meanwhile
                .async("/wait/*", new Handler.Abstract() {
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) {
                        parked.add(callback);
                        return true;
                    }
                })
                .app(new Handler.Abstract() {
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) throws Exception {
                        busy.incrementAndGet();
                        release.await(20, TimeUnit.SECONDS);
                        response.setStatus(200);
                        response.write(true, ByteBuffer.wrap("done".getBytes(StandardCharsets.UTF_8)), callback);
                        return true;
                    }
                }).build().start();
        List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waiting.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/wait/" + i)).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            slow.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/p" + i))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((busy.get() < 4 || parked.size() < 20) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(busy.get()).as("requests at once: threads.max - 4").isEqualTo(4);
        assertThat(parked).as("20 long polls parked, none holding a thread").hasSize(20);
        Thread.sleep(300); // the fifth waits for a turn

        HttpResponse<String> refused = get("/p-extra", Duration.ofSeconds(5));
        HttpResponse<String> live = get("/health/live", Duration.ofSeconds(3));
        release.countDown();
        parked.forEach(Callback::succeeded);

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(live.statusCode()).isEqualTo(200);
        for (var f : slow) {
            assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        for (var f : waiting) {
            assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldDiscardTheRestOfAnUnreadBodyArrivingAfterTheAnswerAndCarryTheNextRequest() throws Exception {
        // the application answers without reading the body, as a refusal does (401, 405, 404, a declared length
        // over a limit); the client sends its whole body anyway, most of it after the answer. Closed with those
        // bytes arriving, the server's kernel would answer them with a reset and the client would lose the answer
        server = surface(HttpLimits.DEFAULTS).build().start();
        String body = "{\"input\":\"" + "x".repeat(256 * 1024) + "\"}";
        try (RawHttp client = new RawHttp("127.0.0.1", server.port())) {
            client.send(RawHttp.head("POST", "/page", body.length(), "Content-Type: application/json")
                    + body.substring(0, 1000));
            RawHttp.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.saysClose()).as("a body of 256 KiB is drained: " + answer.headers()).isFalse();
            for (int at = 1000; at < body.length(); at += 16 * 1024) {
                assertThat(client.send(body.substring(at, Math.min(body.length(), at + 16 * 1024))))
                        .as("the rest of the body, from byte %d", at).isTrue();
            }
            assertThat(client.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).isTrue();
            assertThat(client.read()).as("the next request on the connection").isNotNull()
                    .extracting(RawHttp.Answer::body).isEqualTo("page");
        }
    }

    @Test
    void shouldAnswerEveryEarlyRefusalOfAJavaClientWhoseBodyIsStillArriving() throws Exception {
        // what the JDK client does with a body its server refuses unread: head and body written back to back, the
        // answer read meanwhile. Without the drain about one in thirty of these ended in "broken pipe" and no answer,
        // whether the refusal said the connection closes or not
        server = HttpSurface.builder("test").bind("127.0.0.1", 0).limits(HttpLimits.DEFAULTS)
                .app(new Handler.Abstract() {
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) {
                        response.setStatus(400);
                        if (request.getHeaders().contains("X-Close")) {
                            response.getHeaders().put("Connection", "close");
                        }
                        response.write(true, ByteBuffer.wrap("refused".getBytes(StandardCharsets.UTF_8)), callback);
                        return true;
                    }
                }).build().start();
        URI uri = URI.create("http://127.0.0.1:" + server.port() + "/p");
        List<String> lost = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString("x".repeat(i % 2 == 0 ? 40_000 : 200_000)));
            if (i % 4 >= 2) {
                request.header("X-Close", "1");
            }
            try {
                assertThat(http.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                        .isEqualTo(400);
            } catch (java.io.IOException e) {
                lost.add(i + ": " + e);
            }
        }
        assertThat(lost).as("requests whose refusal was lost").isEmpty();
    }

    @Test
    void shouldSayCloseOverAnUnreadBodyTooLargeToDrainAndEndAConnectionWhoseBodyNeverComes() throws Exception {
        server = surface(new HttpLimits(16, 128, 512, 10_000, 300, 30_000)).build().start();
        try (RawHttp client = new RawHttp("127.0.0.1", server.port())) {
            // declared beyond what is drained: the answer says the connection ends
            client.send(RawHttp.head("POST", "/page", (int) (HttpSurface.UNREAD_BODY_DRAINED_BYTES + 1)));
            RawHttp.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.saysClose()).as(answer.headers().toString()).isTrue();
        }
        try (RawHttp client = new RawHttp("127.0.0.1", server.port())) {
            // a small body that never comes: answered, and the connection ends after the body deadline
            client.send(RawHttp.head("POST", "/page", 100));
            assertThat(client.read().status()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(client.read()).as("nothing more on a connection whose body never came").isNull();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(get("/page", Duration.ofSeconds(5)).body()).isEqualTo("page");
    }

    @Test
    void shouldKeepTheConnectionOfAnswersWhoseUnreadBodiesHadArrivedWhole() throws Exception {
        server = surface(HttpLimits.DEFAULTS).build().start();
        String body = "{\"input\":\"" + "x".repeat(200) + "\"}";
        try (RawHttp client = new RawHttp("127.0.0.1", server.port())) {
            for (int i = 0; i < 3; i++) {
                client.send(RawHttp.head("POST", "/page", body.length(), "Content-Type: application/json") + body);
                RawHttp.Answer answer = client.read();
                assertThat(answer).as("answer %d on one connection", i).isNotNull();
                assertThat(answer.status()).isEqualTo(200);
                assertThat(answer.saysClose()).as("answer %d", i).isFalse();
            }
            client.send("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(client.read()).extracting(RawHttp.Answer::body).isEqualTo("page");
        }
    }

    @Test
    void shouldAnswerProbesWithoutTheApplicationAndRefuseOtherMethods() throws Exception {
        AtomicInteger appCalls = new AtomicInteger();
        server = HttpSurface.builder("test").bind("127.0.0.1", 0)
                .probe("/health/ready", () -> {
                    throw new IllegalStateException("the check broke");
                })
                .app(new Handler.Abstract() {
                    @Override
                    public boolean handle(Request request, Response response, Callback callback) {
                        appCalls.incrementAndGet();
                        callback.succeeded();
                        return true;
                    }
                }).build().start();

        HttpResponse<String> ready = get("/health/ready", Duration.ofSeconds(3));
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/health/ready")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(ready.statusCode()).as("a throwing check is not ready").isEqualTo(503);
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(appCalls).hasValue(0);
    }

    @Test
    void shouldReadLimitsUnderAPrefixAndNameTheKeyOfNonsense() {
        HttpLimits l = HttpLimits.from(java.util.Map.of("x.http.threads.max", "24", "x.http.header.timeout.ms",
                "3000"), "x.http.");
        assertThat(l.maxThreads()).isEqualTo(24);
        assertThat(l.headerTimeoutMs()).isEqualTo(3000);
        assertThat(l.bodyTimeoutMs()).isEqualTo(HttpLimits.DEFAULTS.bodyTimeoutMs());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpLimits.from(java.util.Map.of(
                "x.http.threads.max", "4"), "x.http.")).hasMessageContaining("x.http.threads.max");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpLimits.from(java.util.Map.of(
                "x.http.body.timeout.ms", "soon"), "x.http.")).hasMessageContaining("x.http.body.timeout.ms");
        assertThat(HttpLimits.keys("http.")).contains("http.threads.max", "http.idle.timeout.ms").hasSize(6);
    }
}
