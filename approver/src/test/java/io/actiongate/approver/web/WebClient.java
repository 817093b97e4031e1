package io.actiongate.approver.web;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A scripted browser for tests without one: keeps cookies by name (also {@code Secure} ones over http://localhost,
 * as browsers do), follows redirects by hand, and can send any {@code Origin}.
 */
public final class WebClient {

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, String> cookies = new LinkedHashMap<>();
    private final List<String> setCookieLines = new java.util.ArrayList<>();

    public HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET());
    }

    /** GETs and follows redirects (at most 10). */
    public HttpResponse<String> follow(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = get(url);
        for (int i = 0; i < 10 && r.statusCode() / 100 == 3; i++) {
            r = get(r.uri().resolve(r.headers().firstValue("Location").orElseThrow()).toString());
        }
        return r;
    }

    public HttpResponse<String> post(String url, String origin, Map<String, String> form)
            throws IOException, InterruptedException {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (origin != null) {
            b.header("Origin", origin);
        }
        return send(b);
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        if (!cookies.isEmpty()) {
            b.header("Cookie", cookies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("; ")));
        }
        HttpResponse<String> r = http.send(b.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        for (String line : r.headers().allValues("Set-Cookie")) {
            setCookieLines.add(line);
            String pair = line.split(";", 2)[0];
            int eq = pair.indexOf('=');
            String name = pair.substring(0, eq).strip();
            String value = pair.substring(eq + 1).strip();
            if (value.isEmpty() || line.contains("Max-Age=0")) {
                cookies.remove(name);
            } else {
                cookies.put(name, value);
            }
        }
        return r;
    }

    public String cookie(String name) {
        return cookies.get(name);
    }

    public void setCookie(String name, String value) {
        cookies.put(name, value);
    }

    public void dropCookie(String name) {
        cookies.remove(name);
    }

    public List<String> setCookieLines() {
        return List.copyOf(setCookieLines);
    }

    /** The {@code value} of the input named {@code name} in {@code html}, or null. */
    public static String input(String html, String name) {
        Matcher m = Pattern.compile("<input[^>]*name=\"" + Pattern.quote(name) + "\"[^>]*value=\"([^\"]*)\"")
                .matcher(html);
        return m.find() ? m.group(1) : null;
    }

    /** The text of the element with {@code id} (no nested tags), HTML entities left as they are. */
    public static String text(String html, String id) {
        Matcher m = Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*>([^<]*)<").matcher(html);
        return m.find() ? m.group(1) : null;
    }
}
