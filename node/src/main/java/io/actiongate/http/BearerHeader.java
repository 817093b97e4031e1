package io.actiongate.http;

import java.util.Locale;
import java.util.Optional;

import com.sun.net.httpserver.HttpExchange;

/** The one reading of {@code Authorization: Bearer TOKEN} on the node's HTTP surface (scheme case-insensitive). */
final class BearerHeader {

    private static final String BEARER = "bearer ";

    private BearerHeader() {
    }

    /** Whether the request has an {@code Authorization} header at all, bearer or not. */
    static boolean present(HttpExchange exchange) {
        return exchange.getRequestHeaders().getFirst("Authorization") != null;
    }

    /** The token of a bearer {@code Authorization} header, stripped; empty for none or another scheme. */
    static Optional<String> token(HttpExchange exchange) {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
            return Optional.empty();
        }
        String token = authorization.substring(BEARER.length()).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}
