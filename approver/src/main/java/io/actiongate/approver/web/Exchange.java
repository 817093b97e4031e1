package io.actiongate.approver.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;

/**
 * One request and its response, with the security headers every answer carries: a strict Content-Security-Policy
 * (scripts and styles only from this origin, no inline script, no framing), no caching, no referrer to other sites,
 * no sniffing.
 */
public final class Exchange {

    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final int MAX_FORM_BYTES = 64 * 1024;

    private final HttpExchange http;
    private Map<String, String> form;

    Exchange(HttpExchange http) {
        this.http = http;
    }

    public String method() {
        return http.getRequestMethod();
    }

    public String path() {
        return http.getRequestURI().getRawPath();
    }

    public String header(String name) {
        return http.getRequestHeaders().getFirst(name);
    }

    public String remote() {
        return http.getRemoteAddress() == null ? "?" : http.getRemoteAddress().getAddress().getHostAddress();
    }

    /** A query parameter (first value), decoded. */
    public String query(String name) {
        return parse(http.getRequestURI().getRawQuery()).get(name);
    }

    public String cookie(String name) {
        List<String> headers = http.getRequestHeaders().get("Cookie");
        if (headers == null) {
            return null;
        }
        for (String h : headers) {
            for (String part : h.split(";")) {
                int eq = part.indexOf('=');
                if (eq > 0 && part.substring(0, eq).strip().equals(name)) {
                    return part.substring(eq + 1).strip();
                }
            }
        }
        return null;
    }

    /** The url-encoded form body (first value per name); at most 64 KiB. */
    public Map<String, String> form() throws IOException {
        if (form == null) {
            String type = header("Content-Type");
            if (type == null
                    || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
                form = Map.of();
                return form;
            }
            try (InputStream in = http.getRequestBody()) {
                byte[] body = in.readNBytes(MAX_FORM_BYTES + 1);
                if (body.length > MAX_FORM_BYTES) {
                    throw new IOException("form too large");
                }
                form = parse(new String(body, StandardCharsets.UTF_8));
            }
        }
        return form;
    }

    public String field(String name) throws IOException {
        return form().get(name);
    }

    static Map<String, String> parse(String raw) {
        Map<String, String> m = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return m;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                m.putIfAbsent(URLDecoder.decode(k, StandardCharsets.UTF_8),
                        URLDecoder.decode(v, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                // a malformed escape: the field is absent
            }
        }
        return m;
    }

    public void setCookie(String value) {
        http.getResponseHeaders().add("Set-Cookie", value);
    }

    private void securityHeaders() {
        var h = http.getResponseHeaders();
        h.set("Content-Security-Policy", CSP);
        h.set("X-Frame-Options", "DENY");
        h.set("X-Content-Type-Options", "nosniff");
        // not no-referrer: under it browsers send "Origin: null" on form posts, and the origin check needs the origin
        h.set("Referrer-Policy", "same-origin");
        h.set("Cross-Origin-Opener-Policy", "same-origin");
        h.set("Cross-Origin-Resource-Policy", "same-origin");
        h.set("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)");
        h.set("Cache-Control", "no-store");
    }

    public void send(int status, String contentType, byte[] body) throws IOException {
        securityHeaders();
        http.getResponseHeaders().set("Content-Type", contentType);
        if (method().equals("HEAD")) {
            http.sendResponseHeaders(status, -1);
            return;
        }
        http.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = http.getResponseBody()) {
            out.write(body);
        }
    }

    public void html(int status, String html) throws IOException {
        send(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    public void redirect(String location) throws IOException {
        http.getResponseHeaders().set("Location", location);
        send(303, "text/plain; charset=utf-8", new byte[0]);
    }

    void close() {
        http.close();
    }
}
