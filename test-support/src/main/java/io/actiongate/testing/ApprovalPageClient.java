package io.actiongate.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A person at the approval service's pages, scripted: plain HTTP, as a browser without JavaScript would do it. It
 * signs in (through a non-interactive identity provider, or at an interactive one's login form), sets up a one-time
 * code app under "Step-up factors" (keeping the secret the page shows, as the app would), opens a review until it
 * offers the decision form and posts it with the anti-forgery token, the page's {@code Origin}, the review's
 * single-use challenge and, to approve, a fresh one-time code.
 *
 * <p>It keeps cookies by name (also the {@code Secure} ones over http://localhost, as browsers do) and follows
 * redirects itself. Made with the service's URLs (its replicas behind a load balancer), it sends and keeps cookies
 * for those origins only, never for the identity provider; made without, for every host (the approval service's own
 * tests, whose provider sets none). One client is one person: not for use by several threads at once, apart from
 * the cookie jar, which {@link #postAsync} updates from the HTTP client's thread.
 */
public final class ApprovalPageClient {

    /** The approval service's session cookie, set once a person has signed in. */
    public static final String SESSION_COOKIE = "__Host-ag_session";
    /** What a blocking request waits for its answer. */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** What {@link #postAsync} waits: a little longer than a request, so a caller's own wait decides first. */
    public static final Duration ASYNC_POST_TIMEOUT = Duration.ofSeconds(35);
    /** The status a review shows while a decision is still wanted. */
    public static final String WAITING = "WAITING_APPROVAL";
    private static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final int MAX_REDIRECTS = 10;

    /** Something the pages did not do as a person would expect; the message says what. */
    public static final class PageException extends Exception {
        private static final long serialVersionUID = 1L;

        public PageException(String message) {
            super(message);
        }
    }

    /** What a review page showed (its text unescaped) and what posting its form answered. */
    public record Decided(String recipient, String subject, String body, String actionDigest, String answer) {
    }

    private final HttpClient http;
    private final List<String> origins;
    private final Clock clock;
    private final Map<String, String> cookies = new LinkedHashMap<>();
    private final List<String> setCookieLines = new ArrayList<>();
    private OneTimeCodeApp codes;

    /** Cookies for every host; a 5-second connect timeout. */
    public ApprovalPageClient() {
        this(List.of(), DEFAULT_CONNECT_TIMEOUT, Clock.systemUTC());
    }

    /** For one approval service at {@code page} (its public URL); a 5-second connect timeout. */
    public ApprovalPageClient(URI page) {
        this(List.of(page), DEFAULT_CONNECT_TIMEOUT, Clock.systemUTC());
    }

    /**
     * @param pages          the public URLs of the approval service's replicas: cookies go to and come from these
     *                       origins only (none: every host)
     * @param connectTimeout how long a connection may take (short where replicas are killed on purpose)
     * @param clock          the time the person's one-time code app reads: the system's, or the clock a test runs
     *                       the service on
     */
    public ApprovalPageClient(List<URI> pages, Duration connectTimeout, Clock clock) {
        this.origins = pages.stream().map(ApprovalPageClient::origin).toList();
        this.clock = clock;
        this.http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(connectTimeout)
                .build();
    }

    /** {@code scheme://authority} of {@code url}: what a browser sends as {@code Origin}. */
    public static String origin(URI url) {
        return url.getScheme() + "://" + url.getAuthority();
    }

    // ---- a person's steps ----

    /**
     * Signs in through a non-interactive identity provider (the caller has told it whom the next sign-in is):
     * opens {@code /login?return=returnPath} on {@code page} and follows the redirects through the provider back to
     * the service. Returns the last answer; fails when the service set no session cookie.
     */
    public HttpResponse<String> signIn(URI page, String returnPath)
            throws IOException, InterruptedException, PageException {
        HttpResponse<String> r = follow(page.resolve("/login?return=" + returnPath));
        if (cookie(SESSION_COOKIE) == null) {
            throw new PageException("signed in, but the approval page set no session cookie (HTTP " + r.statusCode()
                    + " from " + r.uri().getPath() + ")");
        }
        return r;
    }

    /**
     * Signs in at an interactive identity provider's login form (navikt's mock-oauth2-server) as {@code username},
     * with {@code claimsJson} in its claims box (empty: the claims the provider adds on its own); returns the person
     * the queue page greets.
     */
    public String signInAtLoginForm(URI page, String username, String claimsJson)
            throws IOException, InterruptedException, PageException {
        HttpResponse<String> r = get(page.resolve("/login?return=/queue"));
        expectRedirect(r, "the sign-in redirect to the identity provider");
        URI authorize = location(r);
        r = get(authorize);
        expect(r, 200, "the identity provider's login form");
        if (!r.body().contains("name=\"username\"")) {
            throw new PageException("the identity provider showed no login form");
        }
        // the form posts back to the same authorization URL
        r = post(authorize, null, Map.of("username", username, "claims", claimsJson));
        expectRedirect(r, "the identity provider's redirect back to the approval page");
        r = get(location(r));
        expect(r, 200, "the approval page's sign-in callback");
        if (cookie(SESSION_COOKIE) == null) {
            throw new PageException("signed in, but the approval page set no session cookie");
        }
        return text(get(page.resolve("/queue")).body(), "who");
    }

    /** Sets up a one-time code app under "Step-up factors" on {@code page}; this client keeps the app. */
    public OneTimeCodeApp enrolTotp(URI page) throws IOException, InterruptedException, PageException {
        String stepUp = get(page.resolve("/stepup")).body();
        String csrf = requireInput(stepUp, "csrf", "the step-up page");
        HttpResponse<String> pending = post(page.resolve("/stepup/totp"), origin(page), Map.of("csrf", csrf));
        String secret = pending.statusCode() == 200 ? text(pending.body(), "totp-secret") : null;
        if (secret == null) {
            throw new PageException("the step-up page showed no one-time code secret (HTTP " + pending.statusCode()
                    + " from " + pending.uri().getPath() + ")");
        }
        OneTimeCodeApp app = new OneTimeCodeApp(secret, clock);
        HttpResponse<String> done = post(page.resolve("/stepup/totp/confirm"), origin(page),
                Map.of("csrf", csrf, "totp", app.nextCode()));
        if (!done.body().contains("One-time code app set up.")) {
            throw new PageException("the one-time code app was not set up (HTTP " + done.statusCode() + ")");
        }
        codes = app;
        return app;
    }

    /** The one-time code app {@link #enrolTotp} set up, or null. */
    public OneTimeCodeApp codes() {
        return codes;
    }

    /**
     * Opens {@code review} until it offers the decision form (the service reads the receipts on its own, a moment
     * after the gate wrote them) and returns the page; null once it shows the action no longer waiting (a receipt
     * status other than {@value #WAITING}: decided, expired, cancelled). An unreachable service fails at once with the {@link IOException}, so a caller can try a
     * replica; a page that offers no form within {@code wait} fails with what it shows.
     */
    public String awaitForm(URI review, Duration wait) throws IOException, InterruptedException, PageException {
        long deadline = System.nanoTime() + wait.toNanos();
        HttpResponse<String> r;
        while (true) {
            r = get(review);
            if (r.statusCode() == 200 && r.body().contains("id=\"decide\"")) {
                return r.body();
            }
            // a receipt's status in capitals; "unknown" is an action the service has not read yet: keep looking
            String status = text(r.body(), "status");
            if (r.statusCode() == 200 && status != null && status.matches("[A-Z_]+") && !status.equals(WAITING)) {
                return null;
            }
            if (System.nanoTime() - deadline > 0) {
                break;
            }
            Thread.sleep(POLL.toMillis());
        }
        String html = r.body();
        StringBuilder shown = new StringBuilder("HTTP ").append(r.statusCode());
        String status = text(html, "status");
        if (status != null) {
            shown.append(", status ").append(status);
        }
        Matcher refusals = Pattern.compile("id=\"refusals\">(.{0,400})", Pattern.DOTALL).matcher(html);
        if (refusals.find()) {
            shown.append(": ").append(refusals.group(1).replaceAll("<[^>]+>", " ").replaceAll("\\s+", " ").strip());
        }
        throw new PageException("the review " + review.getPath() + " offered no decision form within "
                + wait.toSeconds() + " s (" + shown + ")");
    }

    /**
     * The decision form of a review page, filled: its anti-forgery token and challenge, {@code decision}
     * ({@code APPROVE} or {@code REJECT}) and, to approve, a code of this client's one-time code app.
     */
    public Map<String, String> decisionForm(String reviewHtml, String decision)
            throws InterruptedException, PageException {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("csrf", requireInput(reviewHtml, "csrf", "the review"));
        form.put("challenge", requireInput(reviewHtml, "challenge", "the review"));
        form.put("decision", decision);
        if (decision.equals("APPROVE")) {
            if (codes == null) {
                throw new PageException("an approval needs a one-time code, and no code app was set up");
            }
            form.put("totp", codes.nextCode());
        }
        return form;
    }

    /** Whether posting a decision answered that it was signed and published. */
    public static boolean published(HttpResponse<String> answer) {
        return answer.statusCode() == 200 && answer.body().contains("Decision published")
                || answer.body().contains("You approved this exact action");
    }

    /**
     * Opens the review of the action {@code actionKey} on {@code page} once it offers the form, then posts
     * {@code decision}; the answer is {@code Decision published} or the HTTP status and the refusal shown.
     */
    public Decided decide(URI page, String actionKey, String decision, Duration wait)
            throws IOException, InterruptedException, PageException {
        URI review = page.resolve("/review/" + actionKey);
        String html = awaitForm(review, wait);
        if (html == null) {
            throw new PageException("the review of " + actionKey + " offers no decision: its status is "
                    + text(get(review).body(), "status"));
        }
        HttpResponse<String> answer = post(review, origin(page), decisionForm(html, decision));
        String message = published(answer) ? "Decision published"
                : "HTTP " + answer.statusCode() + ": " + unescape(text(answer.body(), "refusal"));
        return new Decided(unescape(text(html, "recipient")), unescape(text(html, "subject")),
                unescape(text(html, "body")), text(html, "action-digest"), message);
    }

    // ---- requests ----

    public HttpResponse<String> get(URI url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(url).GET());
    }

    public HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return get(URI.create(url));
    }

    /** GETs and follows redirects (at most ten). */
    public HttpResponse<String> follow(URI url) throws IOException, InterruptedException {
        HttpResponse<String> r = get(url);
        for (int i = 0; i < MAX_REDIRECTS && r.statusCode() / 100 == 3; i++) {
            URI from = r.uri();
            r = get(from.resolve(r.headers().firstValue("Location").orElseThrow(
                    () -> new IOException("a redirect without Location from " + from))));
        }
        return r;
    }

    public HttpResponse<String> follow(String url) throws IOException, InterruptedException {
        return follow(URI.create(url));
    }

    /** POSTs {@code form} url-encoded, with {@code Origin: origin} (none when null). */
    public HttpResponse<String> post(URI url, String origin, Map<String, String> form)
            throws IOException, InterruptedException {
        return send(formPost(url, origin, form));
    }

    public HttpResponse<String> post(String url, String origin, Map<String, String> form)
            throws IOException, InterruptedException {
        return post(URI.create(url), origin, form);
    }

    /**
     * As {@link #post}, without waiting for the answer (its cookies are kept when it comes), so a caller can do
     * something to the service meanwhile, such as kill the replica that serves it.
     */
    public CompletableFuture<HttpResponse<String>> postAsync(URI url, String origin, Map<String, String> form) {
        HttpRequest.Builder b = formPost(url, origin, form);
        withCookies(b);
        return http.sendAsync(b.timeout(ASYNC_POST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> {
                    keepCookies(r);
                    return r;
                });
    }

    private static HttpRequest.Builder formPost(URI url, String origin, Map<String, String> form) {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (origin != null) {
            b.header("Origin", origin);
        }
        return b;
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        withCookies(b);
        HttpResponse<String> r = http.send(b.timeout(REQUEST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        keepCookies(r);
        return r;
    }

    // ---- cookies ----

    private boolean ours(URI url) {
        return origins.isEmpty() || origins.contains(origin(url));
    }

    private synchronized void withCookies(HttpRequest.Builder b) {
        if (!cookies.isEmpty() && ours(b.copy().build().uri())) {
            b.header("Cookie", cookies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("; ")));
        }
    }

    private synchronized void keepCookies(HttpResponse<String> r) {
        if (!ours(r.uri())) {
            return;
        }
        for (String line : r.headers().allValues("Set-Cookie")) {
            setCookieLines.add(line);
            String pair = line.split(";", 2)[0];
            int eq = pair.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String name = pair.substring(0, eq).strip();
            String value = pair.substring(eq + 1).strip();
            if (value.isEmpty() || line.contains("Max-Age=0")) {
                cookies.remove(name);
            } else {
                cookies.put(name, value);
            }
        }
    }

    public synchronized String cookie(String name) {
        return cookies.get(name);
    }

    public synchronized void setCookie(String name, String value) {
        cookies.put(name, value);
    }

    public synchronized void dropCookie(String name) {
        cookies.remove(name);
    }

    /** Forgets every cookie (a person who cleared their browser). */
    public synchronized void clearCookies() {
        cookies.clear();
    }

    /** Every {@code Set-Cookie} line received, in order. */
    public synchronized List<String> setCookieLines() {
        return List.copyOf(setCookieLines);
    }

    // ---- reading pages ----

    /** The {@code value} of the input named {@code name} in {@code html}, or null. */
    public static String input(String html, String name) {
        Matcher m = Pattern.compile("<input[^>]*name=\"" + Pattern.quote(name) + "\"[^>]*value=\"([^\"]*)\"")
                .matcher(html);
        return m.find() ? m.group(1) : null;
    }

    /** As {@link #input}, failing with {@code where} when the page has no such field. */
    public static String requireInput(String html, String name, String where) throws PageException {
        String value = input(html, name);
        if (value == null) {
            throw new PageException(where + " has no " + name + " field");
        }
        return value;
    }

    /** The text of the element with {@code id} (no nested tags), HTML entities left as they are; or null. */
    public static String text(String html, String id) {
        Matcher m = Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*>([^<]*)<").matcher(html);
        return m.find() ? m.group(1) : null;
    }

    /** Undoes the page's HTML escaping of text; null stays null. */
    public static String unescape(String s) {
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
}
