package io.actiongate.connector.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.ErrorCodes;

/** The connectors' HTTP/1.1 client against a raw socket server whose every byte the test decides. */
class HttpCallerTest {

    private final HttpCaller caller = new HttpCaller(Duration.ofSeconds(2), Duration.ofSeconds(2));
    private RawServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    private static HttpRequest post(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).header("Idempotency-Key", "k-1")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    @Test
    void shouldSendOneRequestPerExchangeAndReuseTheConnection() throws Exception {
        server = new RawServer(request -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false);
        for (int i = 0; i < 3; i++) {
            HttpCaller.Response r = caller.send(post(server.url("/op"), "{\"n\":" + i + "}"));
            assertThat(r.status()).isEqualTo(200);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("ok");
        }
        assertThat(server.requests).hasSize(3);
        assertThat(server.connections.get()).as("keep-alive").isEqualTo(1);
        assertThat(server.requests.get(0)).startsWith("POST /op HTTP/1.1").contains("Idempotency-Key: k-1")
                .contains("Content-Length: 7").contains("Host: 127.0.0.1:" + server.port());
    }

    @Test
    void shouldReadChunkedBodiesAndSkipInterimAnswers() throws Exception {
        server = new RawServer(request -> "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n"
                + "Transfer-Encoding: chunked\r\nRetry-After: 3\r\n\r\n4\r\nabcd\r\n3;x=y\r\nefg\r\n0\r\n\r\n", false);
        HttpCaller.Response r = caller.send(post(server.url("/op"), "{}"));
        assertThat(r.status()).isEqualTo(201);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("abcdefg");
        assertThat(r.headers().firstValue("retry-after")).hasValue("3");
        assertThat(caller.send(post(server.url("/op"), "{}")).status()).isEqualTo(201);
        assertThat(server.connections.get()).isEqualTo(1);
    }

    @Test
    void shouldNotUseAPooledConnectionTheServerClosedWhileItWasIdle() throws Exception {
        // the server answers, then closes the connection without saying so (as idle timeouts do)
        server = new RawServer(request -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
        assertThat(caller.send(post(server.url("/op"), "{}")).status()).isEqualTo(200);
        Thread.sleep(HttpCaller.IDLE_CHECK_AFTER.toMillis() + 200);
        assertThat(caller.send(post(server.url("/op"), "{}")).status())
                .as("sent on a fresh connection, not written into the closed one").isEqualTo(200);
        assertThat(server.connections.get()).isEqualTo(2);
        assertThat(server.requests).hasSize(2);
    }

    @Test
    void shouldSayNothingWasSentWhenTheConnectionIsRefused() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        assertThatThrownBy(() -> caller.send(post("http://127.0.0.1:" + closed + "/op", "{}")))
                .isInstanceOf(ConnectException.class)
                .satisfies(e -> assertThat(SendFailure.of(e).requestMaybeSent()).isFalse());
    }

    @Test
    void shouldTimeOutAnAnswerThatDoesNotComeAndSayItMayHaveBeenSent() throws Exception {
        server = new RawServer(request -> null, false); // reads the request, never answers
        HttpCaller slow = new HttpCaller(Duration.ofSeconds(1), Duration.ofMillis(300));
        long start = System.nanoTime();
        assertThatThrownBy(() -> slow.send(post(server.url("/op"), "{}")))
                .satisfies(e -> assertThat(SendFailure.of(e).requestMaybeSent()).isTrue())
                .satisfies(e -> assertThat(SendFailure.of(e).errorCode()).isEqualTo(ErrorCodes.RESPONSE_TIMEOUT));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void shouldGoThroughTheJvmsHttpProxyWithTheAbsoluteForm() throws Exception {
        server = new RawServer(request -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false);
        ProxySelector before = ProxySelector.getDefault();
        ProxySelector.setDefault(new ProxySelector() {
            @Override
            public List<Proxy> select(URI uri) {
                return List.of(new Proxy(Proxy.Type.HTTP, new InetSocketAddress("127.0.0.1", server.port())));
            }

            @Override
            public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {
            }
        });
        try {
            assertThat(caller.send(post("http://provider.example:8443/op?x=1", "{}")).status()).isEqualTo(200);
        } finally {
            ProxySelector.setDefault(before);
        }
        assertThat(server.requests.get(0)).startsWith("POST http://provider.example:8443/op?x=1 HTTP/1.1")
                .contains("Host: provider.example:8443");
    }

    /** Answers each request with what {@code answer} returns (null: nothing), closing after it when told. */
    private static final class RawServer implements AutoCloseable {
        final List<String> requests = new CopyOnWriteArrayList<>();
        final AtomicInteger connections = new AtomicInteger();
        private final ServerSocket socket = new ServerSocket(0);
        private final List<Socket> open = new CopyOnWriteArrayList<>();

        RawServer(Function<String, String> answer, boolean closeAfterAnswer) throws IOException {
            Thread acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        open.add(s);
                        connections.incrementAndGet();
                        Thread t = new Thread(() -> serve(s, answer, closeAfterAnswer));
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void serve(Socket s, Function<String, String> answer, boolean closeAfterAnswer) {
            try (s) {
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                        StandardCharsets.ISO_8859_1));
                OutputStream out = s.getOutputStream();
                while (true) {
                    List<String> head = new ArrayList<>();
                    String line;
                    while ((line = in.readLine()) != null && !line.isEmpty()) {
                        head.add(line);
                    }
                    if (line == null) {
                        return;
                    }
                    int length = head.stream().filter(h -> h.toLowerCase().startsWith("content-length:"))
                            .map(h -> Integer.parseInt(h.substring(15).strip())).findFirst().orElse(0);
                    char[] body = new char[length];
                    int read = 0;
                    while (read < length) {
                        read += in.read(body, read, length - read);
                    }
                    requests.add(String.join("\r\n", head) + "\r\n\r\n" + new String(body));
                    String reply = answer.apply(requests.get(requests.size() - 1));
                    if (reply == null) {
                        Thread.sleep(5_000);
                        return;
                    }
                    out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    if (closeAfterAnswer) {
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the client went away
            }
        }

        int port() {
            return socket.getLocalPort();
        }

        String url(String path) {
            return "http://127.0.0.1:" + port() + path;
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (Socket s : open) {
                s.close();
            }
        }
    }
}
