package io.actiongate.runtime;

import java.util.Optional;

/**
 * The one reading of {@code Authorization: Bearer TOKEN} for every HTTP surface (RFC 6750: the scheme is
 * case-insensitive; the token is stripped of surrounding white space).
 */
public final class BearerHeader {

    public static final String AUTHORIZATION = "Authorization";
    private static final String BEARER = "bearer ";

    private BearerHeader() {
    }

    /** The token of a bearer {@code Authorization} value, stripped; empty for none, an empty one or another scheme. */
    public static Optional<String> token(String authorization) {
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Optional.empty();
        }
        String token = authorization.substring(BEARER.length()).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}
