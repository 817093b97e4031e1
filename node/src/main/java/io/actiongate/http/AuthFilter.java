package io.actiongate.http;

import java.io.IOException;
import java.security.cert.Certificate;
import java.util.Optional;

import javax.net.ssl.SSLPeerUnverifiedException;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a request through when it carries a valid bearer token ({@code Authorization: Bearer ...}) or came over
 * HTTPS with a client certificate the server's trust manager verified against {@code http.tls.client.ca.file};
 * otherwise answers 401.
 * {@link #callerOrg} names the org of the caller's token (not an exchange attribute: the JDK server shares those
 * across the exchanges of one context). A refusal is logged with the method, path, peer and reason, never with the presented token.
 */
final class AuthFilter extends Filter {

    private static final Logger LOG = LoggerFactory.getLogger(AuthFilter.class);
    private final BearerTokens tokens;
    private final boolean clientCertificates;

    /**
     * @param tokens             the accepted tokens; null: none
     * @param clientCertificates whether a verified client certificate is enough
     */
    AuthFilter(BearerTokens tokens, boolean clientCertificates) {
        this.tokens = tokens;
        this.clientCertificates = clientCertificates;
    }

    @Override
    public String description() {
        return "bearer token or client certificate";
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        String refusal = refusal(exchange);
        if (refusal == null) {
            chain.doFilter(exchange);
            return;
        }
        LOG.warn("refused {} {} from {}: {}", exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                exchange.getRemoteAddress(), refusal);
        try (exchange) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"actiongate\"");
            Responses.json(exchange, 401, HttpJson.error("unauthorized",
                    "a bearer token or a trusted client certificate is required"));
        }
    }

    /**
     * The org of the bearer token {@code exchange} presents, or null when it presents none, or one without an org
     * (an operator's token), or came with a client certificate only: such callers are answered about every org.
     */
    String callerOrg(HttpExchange exchange) {
        if (tokens == null) {
            return null;
        }
        return BearerHeader.token(exchange).flatMap(tokens::caller).map(BearerTokens.Caller::org).orElse(null);
    }

    /** Why the request is refused; null when it may pass. */
    private String refusal(HttpExchange exchange) {
        if (clientCertificates && exchange instanceof HttpsExchange https && verifiedClient(https)) {
            return null;
        }
        if (!BearerHeader.present(exchange)) {
            return tokens == null && !clientCertificates ? "no credential is configured on this server"
                    : "no credential presented";
        }
        Optional<String> token = BearerHeader.token(exchange);
        if (token.isEmpty()) {
            return "Authorization is not a bearer token";
        }
        if (tokens == null) {
            return "bearer tokens are not configured on this server";
        }
        return tokens.caller(token.get()).isPresent() ? null : "invalid bearer token";
    }

    private static boolean verifiedClient(HttpsExchange https) {
        try {
            Certificate[] chain = https.getSSLSession().getPeerCertificates();
            return chain != null && chain.length > 0;
        } catch (SSLPeerUnverifiedException e) {
            return false;
        }
    }
}
