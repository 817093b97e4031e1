package io.actiongate.http;

import java.io.IOException;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.client.ReceiptState;
import io.actiongate.key.ActionKey;
import io.actiongate.mcp.HostIdentity;

/**
 * {@code GET /v1/actions/{task_id}/{tool_call_id}?wait=30s&until=terminal|decided}: a long poll. It answers as soon
 * as the action's state satisfies {@code until} ({@code terminal}: nothing further happens on its own;
 * {@code decided}: no longer {@code WAITING_APPROVAL}), or when {@code wait} (at most
 * {@value ProposalApiConfig#MAX_WAIT_CONFIG}) runs out, with the state as it is then (404 if there is still none).
 * Same redacted body as without {@code wait}. The poll holds no request thread: it reads the state store once, then
 * again each time this node's receipts consumer reads a committed receipt of the action ({@link ReceiptFeed}), and
 * at the deadline; only while the store cannot be read (a rebalance), or on a node without a receipts consumer, is
 * it read every {@value #POLL_MS} ms. A key owned by another instance is forwarded there once, with its query. A tool host's token (see {@link ProposalApi#hostOf}), and a node token that carries an org, see only
 * their own org's actions, waiting or not; any other answer
 * (no {@code wait}, node credentials) comes from {@link ActionsHandler} unchanged.
 */
final class ActionWaitHandler implements CallHandler {

    static final long POLL_MS = 100;
    private static final Logger LOG = LoggerFactory.getLogger(ActionWaitHandler.class);
    private static final Pattern WAIT = Pattern.compile("(\\d{1,7})(ms|s|m)?");
    private static final Duration FORWARD_SLACK = Duration.ofSeconds(5);

    enum UntilState {
        TERMINAL, DECIDED;

        boolean satisfiedBy(JsonNode state) {
            JsonNode status = state.get("status");
            if (status == null || !status.isTextual()) {
                return false;
            }
            ReceiptState parsed;
            try {
                parsed = ReceiptState.valueOf(status.asText());
            } catch (IllegalArgumentException e) {
                return false;
            }
            return this == TERMINAL ? parsed.isTerminal() : parsed != ReceiptState.WAITING_APPROVAL;
        }
    }

    private final CallHandler plain;
    private final Function<HttpCall, Optional<HostIdentity>> hosts;
    private final Function<HttpCall, String> callerOrg;
    private final ActionStateQuery query;
    private final AsyncAnswers answers;
    private final ReceiptFeed receipts;
    private final Duration maxWait;
    private final HttpClient client;
    private final String scheme;

    /**
     * @param hosts the tool host whose token a request bears, if any (computed per request, never stored in a
     *            shared object)
     * @param callerOrg the org of a node credential that carries one (null: answered about every org)
     */
    ActionWaitHandler(CallHandler plain, Function<HttpCall, Optional<HostIdentity>> hosts,
            Function<HttpCall, String> callerOrg, ActionStateQuery query, AsyncAnswers answers, ReceiptFeed receipts,
            Duration maxWait, SSLContext tls) {
        this.plain = plain;
        this.receipts = receipts;
        this.hosts = hosts;
        this.callerOrg = callerOrg;
        this.query = query;
        this.answers = answers;
        this.maxWait = maxWait;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(FORWARD_SLACK)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (tls != null) {
            builder.sslContext(tls);
        }
        this.client = builder.build();
        this.scheme = tls == null ? "http://" : "https://";
    }

    @Override
    public void handle(HttpCall exchange) throws IOException {
        Map<String, String> params = params(exchange.rawQuery());
        Optional<HostIdentity> host = hosts.apply(exchange);
        Optional<ActionKey> key = ActionsHandler.parse(exchange.rawPath());
        boolean waits = params.containsKey("wait") || params.containsKey("until");
        if ((!waits && host.isEmpty()) || !"GET".equals(exchange.method()) || key.isEmpty()) {
            // no wait asked and no tool host (whose reads are limited to its org below): the plain answer
            plain.handle(exchange);
            return;
        }
        boolean handedOff = false;
        try {
            Duration wait;
            UntilState until;
            try {
                wait = waitOf(params.get("wait"), maxWait);
                until = untilOf(params.get("until"));
            } catch (IllegalArgumentException e) {
                invalidQuery(exchange, maxWait);
                return;
            }
            if (!answers.acquire()) {
                Responses.json(exchange, 503, HttpJson.error("busy", "too many waits are pending; retry"));
                return;
            }
            handedOff = true;
            ActionStateQuery.Route route;
            try {
                route = query.route(key.get().toString());
            } catch (RuntimeException e) {
                answers.finish(exchange, () -> Responses.json(exchange, 503,
                        HttpJson.error("unavailable", "key ownership is not known now; retry")));
                return;
            }
            if (route instanceof ActionStateQuery.Remote remote
                    && exchange.header(ActionsHandler.FORWARDED_HEADER) == null) {
                forward(exchange, remote, key.get(), wait);
            } else {
                String org = host.map(HostIdentity::orgId).orElseGet(() -> callerOrg.apply(exchange));
                new Wait(exchange, key.get().toString(), org, until, System.nanoTime() + wait.toNanos()).start();
            }
        } finally {
            if (!handedOff) {
                exchange.close();
            }
        }
    }

    /** Answers 400 {@code invalid_query}: {@code wait} or {@code until} is not one this API takes. */
    static void invalidQuery(HttpCall exchange, Duration maxWait) throws IOException {
        Responses.json(exchange, 400, HttpJson.error("invalid_query",
                "wait is a duration such as 30s or 500ms (at most " + maxWait.toSeconds()
                        + "s); until is terminal or decided"));
    }

    /** {@code until}: terminal (also when absent) or decided; anything else is an {@link IllegalArgumentException}. */
    static UntilState untilOf(String text) {
        return text == null ? UntilState.TERMINAL : UntilState.valueOf(text.toUpperCase(Locale.ROOT));
    }

    /**
     * {@code wait}: digits with {@code ms}, {@code s} (also without a unit) or {@code m}, capped at {@code maxWait};
     * absent is zero. Anything else is an {@link IllegalArgumentException}.
     */
    static Duration waitOf(String text, Duration maxWait) {
        if (text == null) {
            return Duration.ZERO;
        }
        Matcher m = WAIT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("wait");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        Duration d = switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofSeconds(n);
        };
        return d.compareTo(maxWait) > 0 ? maxWait : d;
    }

    /** One long poll: answered once, from whichever of the store reads first satisfies it or the deadline. */
    private final class Wait {
        private final HttpCall exchange;
        private final String key;
        private final String org;
        private final UntilState until;
        private final long deadline;
        private AutoCloseable watch;
        private ScheduledFuture<?> deadlineTimer;
        private ScheduledFuture<?> pollTimer;
        private boolean done;

        Wait(HttpCall exchange, String key, String org, UntilState until, long deadline) {
            this.exchange = exchange;
            this.key = key;
            this.org = org;
            this.until = until;
            this.deadline = deadline;
        }

        /** Registers for the action's receipts first, so that none falls between the first read and the wait. */
        synchronized void start() {
            watch = receipts.watch(key, this::woken);
            check();
            if (!done && watch != null) {
                deadlineTimer = schedule(deadline - System.nanoTime());
            }
        }

        /** On the receipts consumer's thread: read again on the timer thread, never here. */
        private void woken() {
            try {
                answers.timer().execute(this::check);
            } catch (RuntimeException shuttingDown) {
                // the deadline timer answers, or close() does
            }
        }

        synchronized void check() {
            if (done) {
                return;
            }
            Optional<JsonNode> state;
            try {
                state = visible(query.localState(key), org);
            } catch (StateUnavailableException e) {
                state = null; // not queryable now: keep waiting, answer 503 at the deadline
            } catch (RuntimeException e) {
                LOG.warn("cannot answer for an action: {}", e.getClass().getName());
                finish(() -> Responses.json(exchange, 500, HttpJson.error("internal",
                        "cannot read the action state")));
                return;
            }
            long left = deadline - System.nanoTime();
            if (state != null && state.isPresent() && until.satisfiedBy(state.get()) || left <= 0) {
                Optional<JsonNode> last = state;
                finish(() -> {
                    if (last == null) {
                        Responses.json(exchange, 503, HttpJson.error("unavailable",
                                "state store is not queryable now; retry"));
                    } else if (last.isEmpty()) {
                        Responses.json(exchange, 404, HttpJson.error("not_found", "no such action"));
                    } else {
                        Responses.json(exchange, 200, HttpJson.withoutInputBodies(last.get()));
                    }
                });
                return;
            }
            if (state == null || watch == null) {
                // no receipt will tell: read the store again shortly (a rebalance, or no receipts consumer)
                pollTimer = schedule(Math.min(left, TimeUnit.MILLISECONDS.toNanos(POLL_MS)));
            }
        }

        private ScheduledFuture<?> schedule(long nanos) {
            try {
                return answers.timer().schedule(this::check, Math.max(0, nanos), TimeUnit.NANOSECONDS);
            } catch (RuntimeException shuttingDown) {
                finish(() -> Responses.json(exchange, 503, HttpJson.error("unavailable", "stopping")));
                return null;
            }
        }

        private void finish(AsyncAnswers.Answer answer) {
            done = true;
            for (ScheduledFuture<?> timer : new ScheduledFuture<?>[] {deadlineTimer, pollTimer}) {
                if (timer != null) {
                    timer.cancel(false);
                }
            }
            if (watch != null) {
                try {
                    watch.close();
                } catch (Exception e) {
                    LOG.debug("could not stop watching an action's receipts", e);
                }
            }
            answers.finish(exchange, answer);
        }
    }

    /** A caller of an org sees its own org's actions only; another org's is answered as if absent. */
    static Optional<JsonNode> visible(Optional<JsonNode> state, String callerOrg) {
        if (callerOrg == null || state.isEmpty()) {
            return state;
        }
        JsonNode org = state.get().get("org_id");
        return org != null && org.isTextual() && org.asText().equals(callerOrg) ? state : Optional.empty();
    }

    private void forward(HttpCall exchange, ActionStateQuery.Remote remote, ActionKey key, Duration wait) {
        String query = exchange.rawQuery();
        client.sendAsync(ActionsHandler.ownerRequest(scheme, remote,
                                ActionsHandler.PREFIX + key + (query == null ? "" : "?" + query),
                                wait.plus(FORWARD_SLACK), exchange),
                        HttpResponse.BodyHandlers.ofByteArray())
                .whenComplete((response, failure) -> answers.finish(exchange,
                        () -> ActionsHandler.relayOwnerAnswer(exchange, remote, response, failure)));
    }

    static Map<String, String> params(String rawQuery) {
        Map<String, String> params = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(name, value);
        }
        return params;
    }
}
