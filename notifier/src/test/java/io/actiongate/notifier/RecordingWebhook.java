package io.actiongate.notifier;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for a Slack incoming webhook (or any JSON webhook) on 127.0.0.1: answers 200 {@code ok} to every post
 * and records its path, headers and body.
 */
final class RecordingWebhook implements AutoCloseable {

    record Post(String path, Map<String, List<String>> headers, String body) {
    }

    private final HttpServer server;
    private final List<Post> posts = new CopyOnWriteArrayList<>();
    private volatile int status = 200;

    RecordingWebhook() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                posts.add(new Post(exchange.getRequestURI().getPath(), Map.copyOf(exchange.getRequestHeaders()),
                        new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
            byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders("POST".equals(exchange.getRequestMethod()) ? status : 405, ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        server.start();
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** Every later post is answered with {@code code}. */
    void answer(int code) {
        status = code;
    }

    List<Post> posts() {
        return List.copyOf(posts);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
