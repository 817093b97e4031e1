package io.actiongate.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.contract.ContractLimits;
import io.actiongate.key.ActionKey;

/**
 * {@code GET /v1/actions/{task_id}/{tool_call_id}}: the action's state from the instance that owns its key.
 * A request for a key owned elsewhere is forwarded once (marked by {@link #FORWARDED_HEADER}); a forwarded request
 * that still is not local is answered 503 instead of being forwarded again, so a stale routing table cannot loop.
 * A caller whose credential carries an org is answered only about that org's actions: another org's action is 404,
 * as an unknown one. A forward carries the caller's credential, so the owning instance applies the same rule.
 */
final class ActionsHandler implements CallHandler {

    static final String PREFIX = "/v1/actions/";
    static final String FORWARDED_HEADER = "X-ActionGate-Forwarded";

    private static final Logger LOG = LoggerFactory.getLogger(ActionsHandler.class);
    private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(5);

    private final ActionStateQuery query;
    private final Function<HttpCall, String> callerOrg;
    private final HttpClient client;

    private final String scheme;

    /**
     * @param tls the server's TLS context, or null for plain HTTP: a forward then goes over HTTPS with this
     *            instance's certificate as the client certificate (every gate shares the deployment's TLS setup)
     */
    ActionsHandler(ActionStateQuery query, SSLContext tls) {
        this(query, tls, exchange -> null);
    }

    /** @param callerOrg the org of the request's credential, or null for a credential answered about every org */
    ActionsHandler(ActionStateQuery query, SSLContext tls, Function<HttpCall, String> callerOrg) {
        this.query = query;
        this.callerOrg = callerOrg;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(FORWARD_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (tls != null) {
            builder.sslContext(tls);
        }
        this.client = builder.build();
        this.scheme = tls == null ? "http://" : "https://";
    }

    @Override
    public void handle(HttpCall exchange) throws IOException {
        boolean handedOff = false;
        try {
            if (!"GET".equals(exchange.method())) {
                exchange.setHeader("Allow", "GET");
                Responses.json(exchange, 405, HttpJson.error("method_not_allowed", "only GET is supported"));
                return;
            }
            Optional<ActionKey> key = parse(exchange.rawPath());
            if (key.isEmpty()) {
                Responses.json(exchange, 400, HttpJson.error("invalid_identifier",
                        "expected /v1/actions/{task_id}/{tool_call_id}, ids matching "
                                + ContractLimits.ID_PATTERN.pattern()));
                return;
            }
            try {
                handedOff = answer(exchange, key.get());
            } catch (RuntimeException e) {
                // a failing view function or store must not drop the connection without an answer
                LOG.warn("cannot answer for an action: {}", e.getClass().getName());
                Responses.json(exchange, 500, HttpJson.error("internal", "cannot read the action state"));
            }
        } finally {
            if (!handedOff) {
                exchange.close();
            }
        }
    }

    static Optional<ActionKey> parse(String rawPath) {
        if (rawPath == null || !rawPath.startsWith(PREFIX)) {
            return Optional.empty();
        }
        // raw path: an escaped character (%xx) is not in the id alphabet, so it is rejected rather than decoded
        return ActionKey.tryParse(rawPath.substring(PREFIX.length()));
    }

    /** Answers; true when the answer comes later (a forward, answered from its response). */
    private boolean answer(HttpCall exchange, ActionKey key) throws IOException {
        String actionKey = key.toString();
        ActionStateQuery.Route route = query.route(actionKey);
        if (route instanceof ActionStateQuery.Local) {
            answerLocally(exchange, actionKey);
        } else if (route instanceof ActionStateQuery.Remote remote) {
            if (exchange.header(FORWARDED_HEADER) != null) {
                Responses.json(exchange, 503, HttpJson.error("unavailable", "key ownership is moving; retry"));
            } else {
                forward(exchange, remote, key);
                return true;
            }
        } else {
            Responses.json(exchange, 503, HttpJson.error("unavailable", ((ActionStateQuery.Unavailable) route).why()));
        }
        return false;
    }

    private void answerLocally(HttpCall exchange, String actionKey) throws IOException {
        Optional<JsonNode> state;
        try {
            state = query.localState(actionKey);
        } catch (StateUnavailableException e) {
            Responses.json(exchange, 503, HttpJson.error("unavailable", "state store is not queryable now; retry"));
            return;
        }
        String org = callerOrg.apply(exchange);
        if (ActionWaitHandler.visible(state, org).isEmpty()) {
            // another org's action answers exactly as an unknown one: its existence is not revealed either
            Responses.json(exchange, 404, HttpJson.error("not_found", "no such action"));
            return;
        }
        Responses.json(exchange, 200, HttpJson.withoutInputBodies(state.get()));
    }

    /** Forwards without holding a thread: the owner's answer is relayed from the HTTP client's callback. */
    private void forward(HttpCall exchange, ActionStateQuery.Remote remote, ActionKey key) {
        client.sendAsync(ownerRequest(scheme, remote, PREFIX + key, FORWARD_TIMEOUT, exchange),
                        HttpResponse.BodyHandlers.ofByteArray())
                .whenComplete((response, failure) -> {
                    try (exchange) {
                        relayOwnerAnswer(exchange, remote, response, failure);
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("answer not delivered: {}", e.toString());
                    }
                });
    }

    /**
     * The request that asks the owning instance for {@code pathAndQuery}, marked as forwarded. The caller was
     * authenticated here; every gate accepts the same tokens, so its credential goes along.
     */
    static HttpRequest ownerRequest(String scheme, ActionStateQuery.Remote remote, String pathAndQuery,
                                    Duration timeout, HttpCall exchange) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(scheme + hostForUri(remote.host()) + ":"
                        + remote.port() + pathAndQuery)).timeout(timeout)
                .header(FORWARDED_HEADER, "1").header("Accept", "application/json");
        String authorization = exchange.header("Authorization");
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        return builder.GET().build();
    }

    /** Answers the caller with the owner's answer, or 503 when the owner could not be reached. */
    static void relayOwnerAnswer(HttpCall exchange, ActionStateQuery.Remote remote, HttpResponse<byte[]> response,
                                 Throwable failure) throws IOException {
        if (failure != null) {
            LOG.warn("cannot reach owner {}:{} of an action key: {}", remote.host(), remote.port(),
                    failure.toString());
            Responses.json(exchange, 503, HttpJson.error("unavailable", "owning instance is not reachable; retry"));
        } else {
            Responses.bytes(exchange, response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(Responses.JSON), response.body());
        }
    }

    private static String hostForUri(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
