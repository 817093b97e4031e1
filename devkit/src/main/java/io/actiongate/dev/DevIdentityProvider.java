package io.actiongate.dev;

import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.http.NettyWrapper;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;

/**
 * The OpenID Connect provider {@code actiongate dev} and {@code demo} run for the approval service: navikt's
 * mock-oauth2-server in this process, on loopback, with a free port. It is a real provider (discovery, JWKS,
 * authorization code with PKCE and nonce, signed ID tokens) with a login form instead of passwords: the username a
 * person types becomes the subject ({@link #DEMO_SUBJECT} is the demo login), and every ID token it issues to
 * {@link #CLIENT_ID} carries the org claim {@link DemoPolicy#ORG}. For MCP clients it is also the MCP gateway's
 * authorization server ({@link DevMcpAuthorization}): RFC 8414 metadata with dynamic client registration, and access
 * tokens for the resource a client names. Dev kit only: it must never reach the production artifact (cli's enforcer
 * rules and LayeringTest keep it out).
 */
public final class DevIdentityProvider implements AutoCloseable {

    /** The issuer's path segment: the issuer URL is {@code http://localhost:PORT/demo}. */
    public static final String ISSUER_ID = "demo";
    /** The approval service's client id at this provider (a public client: PKCE binds the code). */
    public static final String CLIENT_ID = "actiongate-approver";
    /** The demo login: type it as the username on the provider's login form. */
    public static final String DEMO_SUBJECT = DevStack.APPROVER_SUBJECT;
    /** The claim the approval service reads the person's org from ({@code approver.oidc.org.claim}'s default). */
    public static final String ORG_CLAIM = "org";

    private final MockOAuth2Server server;
    private final URI issuer;

    private DevIdentityProvider(MockOAuth2Server server, int port) {
        this.server = server;
        // the provider names itself after the host it is asked on; localhost, like the approval page
        this.issuer = URI.create("http://localhost:" + port + "/" + ISSUER_ID);
    }

    /** Starts the provider on 127.0.0.1 with a free port. */
    public static DevIdentityProvider start() {
        // the login form's username overrides this subject; the org claim and the audience stay
        DevMcpAuthorization mcp = new DevMcpAuthorization(ISSUER_ID);
        DefaultOAuth2TokenCallback tokens = new StepUpClaims(mcp);
        NettyWrapper http = new NettyWrapper();
        OAuth2Config config = new OAuth2Config(true, null, null, false, new OAuth2TokenProvider(), Set.of(tokens),
                http);
        MockOAuth2Server server = new MockOAuth2Server(config, mcp.routes());
        server.start(InetAddress.getLoopbackAddress(), 0);
        try {
            return new DevIdentityProvider(server, http.port());
        } catch (RuntimeException e) {
            server.shutdown();
            throw e;
        }
    }

    /** The {@code acr} every ID token carries, for {@code approver.stepup.mode=idp} in dev. */
    public static final String ACR = "urn:actiongate:dev:mfa";
    /** The {@code amr} every ID token carries. */
    public static final List<String> AMR = List.of("pwd", "otp");

    /**
     * The org claim on every token, and what a step-up through the provider checks: {@code acr}, {@code amr} and an
     * {@code auth_time} of the moment the token is issued (the login form authenticates anew each time). A token
     * requested for a resource (RFC 8707: an MCP client asking for the gateway) names that resource as its audience
     * and carries its scopes and the demo profile.
     */
    private static final class StepUpClaims extends DefaultOAuth2TokenCallback {
        private final DevMcpAuthorization mcp;

        StepUpClaims(DevMcpAuthorization mcp) {
            super(ISSUER_ID, DEMO_SUBJECT, "JWT", List.of(CLIENT_ID), Map.of(ORG_CLAIM, DemoPolicy.ORG), 3600);
            this.mcp = mcp;
        }

        @Override
        public List<String> audience(com.nimbusds.oauth2.sdk.TokenRequest request) {
            if (request.getResources() != null && !request.getResources().isEmpty()) {
                return request.getResources().stream().map(URI::toString).toList();
            }
            return super.audience(request);
        }

        @Override
        public Map<String, Object> addClaims(com.nimbusds.oauth2.sdk.TokenRequest request) {
            Map<String, Object> claims = new java.util.HashMap<>(super.addClaims(request));
            claims.putIfAbsent("acr", ACR);
            claims.putIfAbsent("amr", AMR);
            claims.putIfAbsent("auth_time", java.time.Instant.now().getEpochSecond());
            mcp.resourceClaims(request).forEach(claims::putIfAbsent);
            return claims;
        }
    }

    /** The issuer URL ({@code approver.oidc.issuer}). */
    public URI issuer() {
        return issuer;
    }

    /** Where the provider serves its discovery document. */
    public URI discoveryUrl() {
        return URI.create(issuer + "/.well-known/openid-configuration");
    }

    @Override
    public void close() {
        server.shutdown();
    }
}
