package io.actiongate.dev;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.actiongate.approver.stepup.Totp;
import io.actiongate.key.ActionKey;

/**
 * The demo's person at the approval page: plain HTTP, as a browser without JavaScript would do it. Signs in at the
 * identity provider's login form with the demo login, sets up a one-time code app (keeping the secret the page shows,
 * as the app would), and approves or cancels one review by posting its form with the anti-forgery token, the
 * page's {@code Origin}, the review's challenge and, to approve, a fresh one-time code. It keeps cookies by name
 * (also the {@code Secure} ones over http://localhost, as browsers do) and follows redirects itself.
 */
final class DemoReviewer {

    /** Something the page did not do as a person would expect; the message says what. */
    static final class PageException extends Exception {
        private static final long serialVersionUID = 1L;

        PageException(String message) {
            super(message);
        }
    }

    /** What the review page showed and what posting its form answered. */
    record Decided(String recipient, String subject, String body, String actionDigest, String answer) {
    }

    private static final Duration POLL = Duration.ofMillis(250);

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, String> cookies = new LinkedHashMap<>();
    private final URI page;
    private final String origin;
    private byte[] totpSecret;
    private long lastStep = -1;

    /** @param page the approval service's public URL ({@code approver.public.url}) */
    DemoReviewer(URI page) {
        this.page = page;
        this.origin = page.getScheme() + "://" + page.getAuthority();
    }

    /** Signs in through the identity provider's login form as {@code username}; returns the subject shown. */
    String signIn(String username) throws IOException, InterruptedException, PageException {
        HttpResponse<String> r = get(page.resolve("/login?return=/queue"));
        expectRedirect(r, "the sign-in redirect to the identity provider");
        URI authorize = location(r);
        r = get(authorize);
        expect(r, 200, "the identity provider's login form");
        if (!r.body().contains("name=\"username\"")) {
            throw new PageException("the identity provider showed no login form");
        }
        // the form posts back to the same authorization URL; the claims box stays empty (the provider adds the org)
        r = post(authorize, null, Map.of("username", username, "claims", ""));
        expectRedirect(r, "the identity provider's redirect back to the approval page");
        r = get(location(r));
        expect(r, 200, "the approval page's sign-in callback");
        if (!cookies.containsKey("__Host-ag_session")) {
            throw new PageException("signed in, but the approval page set no session cookie");
        }
        String queue = get(page.resolve("/queue")).body();
        return text(queue, "who");
    }

    /** Sets up a one-time code app under "Step-up factors" and keeps its secret. */
    void enrolTotp() throws IOException, InterruptedException, PageException {
        String stepUp = get(page.resolve("/stepup")).body();
        String csrf = requireInput(stepUp, "csrf", "the step-up page");
        HttpResponse<String> pending = post(page.resolve("/stepup/totp"), origin, Map.of("csrf", csrf));
        expect(pending, 200, "setting up a one-time code app");
        String secret = text(pending.body(), "totp-secret");
        if (secret == null) {
            throw new PageException("the step-up page showed no one-time code secret");
        }
        totpSecret = Totp.unbase32(secret);
        HttpResponse<String> done = post(page.resolve("/stepup/totp/confirm"), origin,
                Map.of("csrf", csrf, "totp", nextCode()));
        if (!done.body().contains("One-time code app set up.")) {
            throw new PageException("the one-time code app was not set up (HTTP " + done.statusCode() + ")");
        }
    }

    /**
     * Opens the review of {@code taskId/callId} once the page can decide it (the service reads the receipts on its
     * own, a moment after the gate wrote them), then posts {@code decision} ({@code APPROVE} with a one-time code,
     * {@code REJECT} without).
     */
    Decided decide(String taskId, String callId, String decision, Duration wait)
            throws IOException, InterruptedException, PageException {
        URI review = page.resolve("/review/" + ActionKey.format(taskId, callId));
        long deadline = System.nanoTime() + wait.toNanos();
        String html = get(review).body();
        while (!html.contains("id=\"decide\"")) {
            if (System.nanoTime() - deadline > 0) {
                throw new PageException("the review of " + ActionKey.format(taskId, callId) + " offered no decision form within "
                        + wait.toSeconds() + " s (status " + text(html, "status") + ")");
            }
            Thread.sleep(POLL.toMillis());
            html = get(review).body();
        }
        Map<String, String> form = new LinkedHashMap<>();
        form.put("csrf", requireInput(html, "csrf", "the review"));
        form.put("challenge", requireInput(html, "challenge", "the review"));
        form.put("decision", decision);
        if (decision.equals("APPROVE")) {
            form.put("totp", nextCode());
        }
        HttpResponse<String> answer = post(review, origin, form);
        String message = answer.statusCode() == 200 && answer.body().contains("Decision published")
                ? "Decision published" : "HTTP " + answer.statusCode() + ": " + unescape(text(answer.body(), "refusal"));
        return new Decided(unescape(text(html, "recipient")), unescape(text(html, "subject")),
                unescape(text(html, "body")), text(html, "action-digest"), message);
    }

    /**
     * The code the app shows now; a code's 30-second step is accepted once, so when the current step was used
     * already this waits for the next one, as a person would.
     */
    private String nextCode() throws InterruptedException {
        long step = Totp.step(Instant.now());
        while (step <= lastStep) {
            long nextStepAt = (lastStep + 1) * Totp.STEP_SECONDS * 1000;
            Thread.sleep(Math.max(50, nextStepAt - System.currentTimeMillis() + 50));
            step = Totp.step(Instant.now());
        }
        lastStep = step;
        return Totp.code(totpSecret, step);
    }

    private HttpResponse<String> get(URI url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(url).GET());
    }

    private HttpResponse<String> post(URI url, String originHeader, Map<String, String> form)
            throws IOException, InterruptedException {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (originHeader != null) {
            b.header("Origin", originHeader);
        }
        return send(b);
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpRequest probe = b.copy().build();
        // cookies by name for the approval page only; the identity provider keeps no session of its own
        if (!cookies.isEmpty() && origin.equals(probe.uri().getScheme() + "://" + probe.uri().getAuthority())) {
            b.header("Cookie", cookies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("; ")));
        }
        HttpResponse<String> r = http.send(b.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (origin.equals(r.uri().getScheme() + "://" + r.uri().getAuthority())) {
            for (String line : r.headers().allValues("Set-Cookie")) {
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
        }
        return r;
    }

    private static URI location(HttpResponse<String> r) throws PageException {
        return r.uri().resolve(r.headers().firstValue("Location")
                .orElseThrow(() -> new PageException("a redirect without Location from " + r.uri())));
    }

    private static void expectRedirect(HttpResponse<String> r, String what) throws PageException {
        if (r.statusCode() / 100 != 3) {
            throw new PageException(what + ": HTTP " + r.statusCode() + " from " + r.uri().getPath());
        }
    }

    private static void expect(HttpResponse<String> r, int status, String what) throws PageException {
        if (r.statusCode() != status) {
            throw new PageException(what + ": HTTP " + r.statusCode() + " from " + r.uri().getPath());
        }
    }

    private static String requireInput(String html, String name, String where) throws PageException {
        Matcher m = Pattern.compile("<input[^>]*name=\"" + Pattern.quote(name) + "\"[^>]*value=\"([^\"]*)\"")
                .matcher(html);
        if (!m.find()) {
            throw new PageException(where + " has no " + name + " field");
        }
        return m.group(1);
    }

    /** The text of the element with {@code id} (no nested tags), or null. */
    private static String text(String html, String id) {
        Matcher m = Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*>([^<]*)<").matcher(html);
        return m.find() ? m.group(1) : null;
    }

    /** Undoes the page's HTML escaping of text. */
    static String unescape(String s) {
        if (s == null) {
            return null;
        }
        Matcher m = Pattern.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);").matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String e = m.group(1);
            String r = switch (e) {
                case "amp" -> "&";
                case "lt" -> "<";
                case "gt" -> ">";
                case "quot" -> "\"";
                case "apos" -> "'";
                default -> new String(Character.toChars(e.startsWith("#x")
                        ? Integer.parseInt(e.substring(2), 16) : Integer.parseInt(e.substring(1))));
            };
            m.appendReplacement(out, Matcher.quoteReplacement(r));
        }
        m.appendTail(out);
        return out.toString();
    }
}
