package io.actiongate.approver;

import java.util.List;
import java.util.Map;
import java.util.Set;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.http.NettyWrapper;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;

/**
 * A real OpenID Connect provider in-process (navikt's mock-oauth2-server, test scope only): discovery, JWKS,
 * authorization code with PKCE and nonce, signed ID tokens. Non-interactive, the next sign-in gets the identity
 * given to {@link #nextSignIn}; interactive, it shows a login form whose username becomes the subject and whose
 * claims box the other claims.
 */
public final class TestIdp implements AutoCloseable {

    public static final String ISSUER_ID = "idp";
    public static final String CLIENT_ID = "actiongate-approver";

    private final MockOAuth2Server server;

    public TestIdp(boolean interactive) {
        server = new MockOAuth2Server(new OAuth2Config(interactive, null, null, false, new OAuth2TokenProvider(),
                Set.of(), new NettyWrapper()));
        server.start();
    }

    public String issuer() {
        return server.issuerUrl(ISSUER_ID).toString();
    }

    /** The identity the next non-interactive sign-in receives. */
    public void nextSignIn(String subject, String org, String email) {
        server.enqueueCallback(new DefaultOAuth2TokenCallback(ISSUER_ID, subject, "JWT", List.of(CLIENT_ID),
                Map.of("org", org, "email", email), 3600));
    }

    /** The identity and any further claims ({@code acr}, {@code amr}, {@code auth_time}) of the next sign-in. */
    public void nextSignIn(String subject, Map<String, Object> claims) {
        server.enqueueCallback(new DefaultOAuth2TokenCallback(ISSUER_ID, subject, "JWT", List.of(CLIENT_ID),
                claims, 3600));
    }

    @Override
    public void close() {
        server.shutdown();
    }
}
