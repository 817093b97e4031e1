package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.actiongate.config.ConfigDefs;

/**
 * The gateway's access-token checks, one attack or mistake each (docs/contract.md section 6, "Who the host is"):
 * every refusal is a 401 {@code invalid_token} but the missing scope (403 {@code insufficient_scope}) and unreadable
 * issuer keys (503, the token may be fine).
 */
class AccessTokensTest {

    private static final String RESOURCE = "https://mcp.acme.example/mcp";
    private static TestIssuer issuer;

    @BeforeAll
    static void start() throws Exception {
        issuer = new TestIssuer();
    }

    @AfterAll
    static void stop() {
        issuer.close();
    }

    static OAuthSettings settings(Map<String, String> extra) {
        Map<String, String> c = new HashMap<>(issuer.gatewayConfig(RESOURCE, extra));
        c.put(GatewayConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        c.put(GatewayConfig.REVIEW_URL_CONFIG, "https://approve.example/review/{task_id}/{tool_call_id}");
        c.put(GatewayConfig.UPSTREAMS_CONFIG, "notes");
        return OAuthSettings.from(ConfigDefs.parse(GatewayConfig.CONFIG_DEF, c));
    }

    private static AccessTokens tokens(Map<String, String> extra) {
        return new AccessTokens(settings(extra), issuer.jwks(), Clock.systemUTC(), Duration.ofMillis(50));
    }

    private static AccessTokens tokens() {
        return tokens(Map.of());
    }

    private static void assertInvalid(AccessTokens.Check check, String description) {
        assertThat(check.valid()).isNull();
        assertThat(check.refusal()).isNotNull();
        assertThat(check.refusal().status()).isEqualTo(401);
        assertThat(check.refusal().error()).isEqualTo("invalid_token");
        assertThat(check.refusal().description()).contains(description);
    }

    @Test
    void shouldReadTheHostFromAValidToken() throws Exception {
        AccessTokens.Check check = tokens(Map.of(GatewayConfig.OAUTH_TASK_CLAIM_CONFIG, "actiongate_task"))
                .check(issuer.token(RESOURCE, c -> c.claim("actiongate_task", "T-9")));
        assertThat(check.refusal()).isNull();
        assertThat(check.valid().host()).isEqualTo(new HostIdentity("user-1", TestIssuer.ORG, TestIssuer.PROFILE));
        assertThat(check.valid().task()).contains("T-9");
    }

    @Test
    void shouldRefuseATokenForAnotherAudience() throws Exception {
        assertInvalid(tokens().check(issuer.token("https://other.example/mcp", c -> { })), "another audience");
        // RFC 8707: the exact resource, not a prefix or a sibling
        assertInvalid(tokens().check(issuer.token(RESOURCE + "/x", c -> { })), "another audience");
    }

    @Test
    void shouldRefuseAnExpiredTokenBeyondTheClockSkewOnly() throws Exception {
        Instant now = Instant.now();
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.expirationTime(Date.from(now.minusSeconds(61))))),
                "expired");
        assertThat(tokens().check(issuer.token(RESOURCE, c -> c.expirationTime(Date.from(now.minusSeconds(30)))))
                .valid()).as("within the stated 60 s skew").isNotNull();
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.expirationTime(null))), "no expiry");
    }

    @Test
    void shouldRefuseATokenNotValidYetOrIssuedInTheFuture() throws Exception {
        Instant later = Instant.now().plusSeconds(120);
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.notBeforeTime(Date.from(later)))), "not valid yet");
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.issueTime(Date.from(later)))), "in the future");
    }

    @Test
    void shouldRefuseAnUnsignedToken() throws Exception {
        String none = new PlainJWT(issuer.claims(RESOURCE).build()).serialize();
        assertInvalid(tokens().check(none), "unsigned (alg none)");
        // a signed token with its signature cut off is no better
        String signed = issuer.token(RESOURCE, c -> { });
        assertInvalid(tokens().check(signed.substring(0, signed.lastIndexOf('.') + 1)), "");
    }

    @Test
    void shouldRefuseAnHmacTokenKeyedWithTheIssuersPublicKey() throws Exception {
        // the classic confusion: HS256 with the public key's bytes as the secret, hoping the verifier takes them
        byte[] publicKey = issuer.key().toRSAPublicKey().getEncoded();
        SignedJWT forged = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(issuer.key().getKeyID())
                .build(), issuer.claims(RESOURCE).build());
        forged.sign(new MACSigner(publicKey));
        assertInvalid(tokens().check(forged.serialize()), "algorithm HS256 is not accepted");
        assertThatThrownBy(() -> settings(Map.of(GatewayConfig.OAUTH_ALGORITHMS_CONFIG, "RS256,HS256")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HS256 is refused");
        assertThatThrownBy(() -> settings(Map.of(GatewayConfig.OAUTH_ALGORITHMS_CONFIG, "none")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("none is refused");
    }

    @Test
    void shouldRefuseAnAlgorithmOutsideTheAllowList() throws Exception {
        ECKey ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("ec-1").build(),
                issuer.claims(RESOURCE).build());
        jwt.sign(new ECDSASigner(ec));
        assertInvalid(tokens(Map.of(GatewayConfig.OAUTH_ALGORITHMS_CONFIG, "RS256")).check(jwt.serialize()),
                "algorithm ES256 is not accepted");
        // allowed, but no key of the issuer signed it
        assertInvalid(tokens().check(jwt.serialize()), "no key of the issuer");
    }

    @Test
    void shouldRefuseATokenSignedWithAnotherKeyUnderTheIssuersKid() throws Exception {
        var impostor = new RSAKeyGenerator(2048).keyID(issuer.key().getKeyID()).generate();
        assertInvalid(tokens().check(TestIssuer.sign(impostor, issuer.claims(RESOURCE).build())),
                "signature does not verify");
        // a tampered payload under the issuer's real signature
        String[] parts = issuer.token(RESOURCE, c -> { }).split("\\.");
        String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(issuer.claims(RESOURCE)
                .claim("org", "globex").build().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertInvalid(tokens().check(parts[0] + "." + payload + "." + parts[2]), "signature does not verify");
    }

    @Test
    void shouldRefuseATokenOfAnotherIssuer() throws Exception {
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.issuer("https://evil.example/issuer"))),
                "another issuer");
    }

    @Test
    void shouldRefuseATokenWithoutARequiredScopeWith403() throws Exception {
        AccessTokens.Check check = tokens().check(issuer.token(RESOURCE, c -> c.claim("scope", "openid profile")));
        assertThat(check.refusal().status()).isEqualTo(403);
        assertThat(check.refusal().error()).isEqualTo("insufficient_scope");
        assertThat(check.refusal().description()).contains(TestIssuer.SCOPE);
        // scp as a list (some issuers) counts too
        assertThat(tokens().check(issuer.token(RESOURCE, c -> c.claim("scope", null)
                .claim("scp", java.util.List.of(TestIssuer.SCOPE)))).valid()).isNotNull();
    }

    @Test
    void shouldRefuseATokenWithoutAnOrgOrOfAnOrgNotServed() throws Exception {
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.claim("org", null))), "names no org");
        assertInvalid(tokens().check(issuer.token(RESOURCE, c -> c.claim("org", "acme:admin"))), "names no org");
        AccessTokens served = tokens(Map.of(GatewayConfig.OAUTH_ORGS_CONFIG, "acme"));
        assertThat(served.check(issuer.token(RESOURCE, c -> { })).valid()).isNotNull();
        assertInvalid(served.check(issuer.token(RESOURCE, c -> c.claim("org", "globex"))), "does not serve");
    }

    @Test
    void shouldTakeTheDefaultProfileOnlyWhenConfigured() throws Exception {
        String noProfile = issuer.token(RESOURCE, c -> c.claim("actiongate_profile", null));
        assertInvalid(tokens().check(noProfile), "names no profile");
        assertThat(tokens(Map.of(GatewayConfig.OAUTH_DEFAULT_PROFILE_CONFIG, "assistant")).check(noProfile).valid()
                .host().profileId()).isEqualTo("assistant");
    }

    @Test
    void shouldPickUpARotatedKeyWithoutARestart() throws Exception {
        AccessTokens tokens = tokens();
        assertThat(tokens.check(issuer.token(RESOURCE, c -> { })).valid()).isNotNull();
        int fetches = issuer.jwksFetches();
        issuer.rotate();
        Thread.sleep(100); // past the test's rate limit of one refresh per 50 ms
        assertThat(tokens.check(issuer.token(RESOURCE, c -> { })).valid()).as("signed with the new kid").isNotNull();
        assertThat(issuer.jwksFetches()).isGreaterThan(fetches);
    }

    @Test
    void shouldAnswer503WhenTheIssuersKeysCannotBeRead() throws Exception {
        AccessTokens tokens = tokens();
        issuer.jwksDown(true);
        try {
            AccessTokens.Check check = tokens.check(issuer.token(RESOURCE, c -> { }));
            assertThat(check.refusal().status()).isEqualTo(503);
        } finally {
            issuer.jwksDown(false);
        }
    }

    @Test
    void shouldDiscoverTheJwksFromTheIssuersMetadata() {
        OAuthSettings settings = settings(Map.of());
        assertThat(settings.jwksUrl()).isNull();
        assertThat(AccessTokens.jwksUrl(settings)).isEqualTo(issuer.jwks());
    }

    @Test
    void shouldRefuseAPlainHttpIssuerOrResourceOffLoopback() {
        assertThatThrownBy(() -> settings(Map.of(GatewayConfig.OAUTH_RESOURCE_CONFIG, "http://mcp.acme.example/mcp")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must use https");
        assertThat(settings(Map.of(GatewayConfig.OAUTH_RESOURCE_CONFIG, "HTTPS://MCP.Acme.example/mcp/")).resource())
                .hasToString("https://mcp.acme.example/mcp");
    }
}
