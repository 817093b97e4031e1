package io.actiongate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for a Slack incoming webhook on 127.0.0.1, for {@code actiongate dev} and tests: answers a JSON
 * {@code POST} of a message ({@code {"text": ..., "blocks": [...]}}) with 200 {@code ok}, as Slack does, keeps it, and
 * logs one line per message with its {@code text} headline and the link it carries, so that a newcomer sees what
 * reviewers are told. Anything that is not a JSON object with a {@code text} is answered 400 {@code invalid_payload}.
 */
public final class SandboxChatWebhook implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SandboxChatWebhook.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LINK = Pattern.compile("<([^|>]+)\\|[^>]*>");
    /** The path of the stand-in's one webhook, shaped like Slack's. */
    public static final String PATH = "/services/TDEV/BDEV/sandbox";
    private static final int MAX_BODY = 64 * 1024;

    private final HttpServer server;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    private SandboxChatWebhook(HttpServer server) {
        this.server = server;
        server.createContext(PATH, this::handle);
    }

    /** Starts on an ephemeral port of 127.0.0.1. */
    public static SandboxChatWebhook start() {
        try {
            SandboxChatWebhook hook = new SandboxChatWebhook(LoopbackHttpServers.create(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0));
            hook.server.start();
            return hook;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the sandbox chat webhook: " + e.getMessage(), e);
        }
    }

    /** The webhook's URL (in real life a secret: the notifier takes it by reference). */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
    }

    /** Every message posted so far, as its JSON. */
    public List<String> messages() {
        return List.copyOf(messages);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                answer(exchange, 405, "method_not_allowed");
                return;
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(MAX_BODY + 1);
            }
            JsonNode message;
            try {
                message = body.length > MAX_BODY ? null : JSON.readTree(body);
            } catch (IOException e) {
                message = null;
            }
            if (message == null || !message.isObject() || !message.path("text").isTextual()) {
                answer(exchange, 400, "invalid_payload");
                return;
            }
            messages.add(new String(body, StandardCharsets.UTF_8));
            String text = message.get("text").asText();
            Matcher link = LINK.matcher(text);
            LOG.info("sandbox chat: message {}: {} -> {}", messages.size(), LINK.matcher(text).replaceAll("").strip(),
                    link.find() ? link.group(1) : "(no link)");
            answer(exchange, 200, "ok");
        }
    }

    private static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
