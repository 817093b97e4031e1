package io.actiongate.http;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.policy.TaskOwnership;
import io.actiongate.runtime.BearerHeader;
import io.actiongate.runtime.BearerTokens;

/**
 * The node's own credentials on {@code /v1} (and {@code /metrics} with {@code http.auth.metrics}): a request passes
 * with a valid bearer token from {@code http.auth.tokens.file} or over HTTPS with a client certificate the
 * server's trust manager verified against {@code http.tls.client.ca.file}; otherwise it is answered 401.
 * {@link #callerOrg} names the org of the caller's token, computed per request (never kept in a shared object).
 * A refusal is logged with the method, path, peer and reason, never with the presented token.
 */
final class NodeAuth {

    private static final Logger LOG = LoggerFactory.getLogger(NodeAuth.class);

    /** Who presented a valid token: {@code org} is the token's org, or null for a token without one. */
    record Caller(String org) {
    }

    private final BearerTokens<Caller> tokens;
    private final boolean clientCertificates;

    /**
     * @param tokens             the accepted tokens; null: none
     * @param clientCertificates whether a verified client certificate is enough
     */
    NodeAuth(BearerTokens<Caller> tokens, boolean clientCertificates) {
        this.tokens = tokens;
        this.clientCertificates = clientCertificates;
    }

    /**
     * The node's token file: one token a line, {@code TOKEN} (an operator's, answered about every org) or
     * {@code TOKEN ORG_ID} (answered only about that org's actions); any other line is ignored with a warning.
     */
    static BearerTokens<Caller> tokens(Path file) {
        return new BearerTokens<>(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, file, NodeAuth::line, false);
    }

    private static Optional<Caller> line(String token, List<String> rest) {
        if (rest.size() > 1 || (rest.size() == 1 && !TaskOwnership.ORG_ID.matcher(rest.get(0)).matches())) {
            return Optional.empty();
        }
        return Optional.of(new Caller(rest.isEmpty() ? null : rest.get(0)));
    }

    /** True when {@code call} may pass; otherwise it has been answered 401. */
    boolean admit(HttpCall call) throws IOException {
        String refusal = refusal(call);
        if (refusal == null) {
            return true;
        }
        LOG.warn("refused {} {} from {}: {}", call.method(), Echo.forLog(call.rawPath()), call.remote(), refusal);
        call.setHeader("WWW-Authenticate", "Bearer realm=\"actiongate\"");
        Responses.json(call, 401, HttpJson.error("unauthorized",
                "a bearer token or a trusted client certificate is required"));
        return false;
    }

    /**
     * The org of the bearer token {@code call} presents, or null when it presents none, or one without an org
     * (an operator's token), or came with a client certificate only: such callers are answered about every org.
     */
    String callerOrg(HttpCall call) {
        if (tokens == null) {
            return null;
        }
        return tokens.fromHeader(call.header(BearerHeader.AUTHORIZATION)).map(Caller::org).orElse(null);
    }

    /** Why the request is refused; null when it may pass. */
    private String refusal(HttpCall call) {
        if (clientCertificates && call.clientCertificate()) {
            return null;
        }
        String authorization = call.header(BearerHeader.AUTHORIZATION);
        if (authorization == null) {
            return tokens == null && !clientCertificates ? "no credential is configured on this server"
                    : "no credential presented";
        }
        Optional<String> token = BearerHeader.token(authorization);
        if (token.isEmpty()) {
            return "Authorization is not a bearer token";
        }
        if (tokens == null) {
            return "bearer tokens are not configured on this server";
        }
        return tokens.lookup(token.get()).isPresent() ? null : "invalid bearer token";
    }
}
