package io.actiongate.approver.oidc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.actiongate.approver.web.Sealer;

/**
 * The relying party against an identity provider whose every answer the test writes: the ID tokens an attacker would
 * try (unsigned, another issuer or audience, expired, another sign-in's nonce, another key, an HMAC keyed with the
 * public key) sign nobody in; the token request carries the PKCE verifier of the challenge sent.
 */
class OidcClientTest {

    private static final String CLIENT = "actiongate-approver";
    /**
     * The provider's signing key, made once for the class: a 2048-bit RSA key takes 0.1 to 1 s to make on a busy
     * CPU, and no test changes it (each test still starts its own provider and relying party).
     */
    private static RSAKey providerKey;

    private HttpServer server;
    private String issuer;
    private RSAKey key;
    private final AtomicReference<Function<String, String>> idToken = new AtomicReference<>();
    private final AtomicReference<Map<String, String>> tokenForm = new AtomicReference<>();
    private final AtomicReference<String> tokenAuthorization = new AtomicReference<>();
    private OidcClient client;

    @BeforeAll
    static void makeTheProvidersKey() throws Exception {
        providerKey = new RSAKeyGenerator(2048).keyID("k1").generate();
    }

    @BeforeEach
    void start() throws Exception {
        key = providerKey;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        issuer = "http://127.0.0.1:" + server.getAddress().getPort();
        server.createContext("/.well-known/openid-configuration", ex -> send(ex, 200, "{\"issuer\":\"" + issuer
                + "\",\"authorization_endpoint\":\"" + issuer + "/authorize\",\"token_endpoint\":\"" + issuer
                + "/token\",\"jwks_uri\":\"" + issuer + "/jwks\",\"response_types_supported\":[\"code\"],"
                + "\"subject_types_supported\":[\"public\"],\"id_token_signing_alg_values_supported\":[\"RS256\"]}"));
        server.createContext("/jwks", ex -> send(ex, 200, new JWKSet(key.toPublicJWK()).toString()));
        server.createContext("/token", ex -> {
            Map<String, String> form = form(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            tokenForm.set(form);
            tokenAuthorization.set(ex.getRequestHeaders().getFirst("Authorization"));
            String token = idToken.get().apply(form.get("code"));
            send(ex, 200, "{\"access_token\":\"at-1\",\"token_type\":\"Bearer\",\"expires_in\":60,\"id_token\":\""
                    + token + "\"}");
        });
        server.start();
        client = client(null);
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private OidcClient client(String secret) {
        return new OidcClient(URI.create(issuer), CLIENT, secret, URI.create("https://approve.example/oidc/callback"),
                "openid email", "org", Sealer.random(), Clock.systemUTC());
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    private static Map<String, String> form(String body) {
        Map<String, String> m = new HashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                m.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    private static String query(URI url, String name) {
        return form(url.getRawQuery()).get(name);
    }

    private JWTClaimsSet.Builder claims(String nonce) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(issuer).audience(CLIENT).subject("alice-sub")
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(300)))
                .claim("nonce", nonce).claim("org", "demo").claim("email", "alice@example.com");
    }

    private String signed(JWTClaimsSet c, RSAKey with) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(with.getKeyID()).build(), c);
        jwt.sign(new RSASSASigner(with));
        return jwt.serialize();
    }

    /** Signs in with the ID token {@code token} makes from this sign-in's nonce. */
    private OidcClient.Completed signIn(Function<String, String> token) throws Exception {
        OidcClient.Begin begin = client.begin("/queue");
        String nonce = query(begin.authorizationUrl(), "nonce");
        idToken.set(code -> token.apply(nonce));
        return client.complete(query(begin.authorizationUrl(), "state"), begin.loginCookie(), "code-1");
    }

    private interface Token {
        String make(String nonce) throws Exception;
    }

    private static Function<String, String> t(Token t) {
        return nonce -> {
            try {
                return t.make(nonce);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    @Test
    void shouldSignInWithAValidTokenAndSendThePkceVerifierOfTheChallenge() throws Exception {
        OidcClient.Begin begin = client.begin("/review/T-1/c-1");
        URI url = begin.authorizationUrl();
        assertThat(url.toString()).startsWith(issuer + "/authorize?");
        assertThat(query(url, "response_type")).isEqualTo("code");
        assertThat(query(url, "client_id")).isEqualTo(CLIENT);
        assertThat(query(url, "code_challenge_method")).isEqualTo("S256");
        assertThat(query(url, "prompt")).isNull();
        String nonce = query(url, "nonce");
        idToken.set(t(n -> signed(claims(nonce).build(), key)));

        OidcClient.Completed done = client.complete(query(url, "state"), begin.loginCookie(), "code-1");

        assertThat(done.identity().subject()).isEqualTo("alice-sub");
        assertThat(done.identity().org()).isEqualTo("demo");
        assertThat(done.returnTo()).isEqualTo("/review/T-1/c-1");
        Map<String, String> f = tokenForm.get();
        assertThat(f).containsEntry("grant_type", "authorization_code").containsEntry("code", "code-1")
                .containsEntry("redirect_uri", "https://approve.example/oidc/callback")
                .containsEntry("client_id", CLIENT);
        byte[] s256 = MessageDigest.getInstance("SHA-256").digest(f.get("code_verifier")
                .getBytes(StandardCharsets.US_ASCII));
        assertThat(Base64.getUrlEncoder().withoutPadding().encodeToString(s256))
                .isEqualTo(query(url, "code_challenge"));
    }

    @Test
    void shouldAuthenticateAConfidentialClientWithBasic() throws Exception {
        client = client("s3cret");
        signIn(t(n -> signed(claims(n).build(), key)));
        assertThat(tokenAuthorization.get()).isEqualTo("Basic "
                + Base64.getEncoder().encodeToString((CLIENT + ":s3cret").getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldRefuseAnUnsignedToken() {
        assertThatThrownBy(() -> signIn(t(n -> new PlainJWT(claims(n).build()).serialize())))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
    }

    @Test
    void shouldRefuseATokenOfAnotherIssuer() {
        assertThatThrownBy(() -> signIn(t(n -> signed(claims(n).issuer("https://evil.example").build(), key))))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
    }

    @Test
    void shouldRefuseATokenForAnotherAudience() {
        assertThatThrownBy(() -> signIn(t(n -> signed(claims(n).audience("another-client").build(), key))))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
    }

    @Test
    void shouldRefuseAnExpiredToken() {
        Instant past = Instant.now().minusSeconds(3600);
        assertThatThrownBy(() -> signIn(t(n -> signed(claims(n).issueTime(Date.from(past))
                .expirationTime(Date.from(past.plusSeconds(300))).build(), key))))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
    }

    @Test
    void shouldRefuseATokenWithAnotherSignInsNonce() {
        assertThatThrownBy(() -> signIn(t(n -> signed(claims("another-sign-in").build(), key))))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
        assertThatThrownBy(() -> signIn(t(n -> signed(claims(null).build(), key))))
                .as("no nonce at all").isInstanceOf(OidcException.class);
    }

    @Test
    void shouldRefuseATokenSignedByAnotherKeyUnderTheSameKeyId() {
        assertThatThrownBy(() -> signIn(t(n -> signed(claims(n).build(),
                new RSAKeyGenerator(2048).keyID("k1").generate()))))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
    }

    @Test
    void shouldRefuseAnHmacKeyedWithThePublicKey() {
        // the algorithm confusion attack: HS256 with the provider's public key as the shared secret
        assertThatThrownBy(() -> signIn(t(n -> {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("k1").build(),
                    claims(n).build());
            jwt.sign(new MACSigner(key.toPublicKey().getEncoded()));
            return jwt.serialize();
        }))).isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
    }

    @Test
    void shouldRefuseACallbackWhoseStateOrCookieIsNotThisSignIns() throws Exception {
        OidcClient.Begin begin = client.begin("/queue");
        idToken.set(t(n -> signed(claims(query(begin.authorizationUrl(), "nonce")).build(), key)));
        assertThatThrownBy(() -> client.complete("forged-state", begin.loginCookie(), "code-1"))
                .isInstanceOf(OidcException.class).hasMessageContaining("does not belong");
        OidcClient.Begin other = client.begin("/queue");
        assertThatThrownBy(() -> client.complete(query(begin.authorizationUrl(), "state"), other.loginCookie(),
                "code-1")).isInstanceOf(OidcException.class).hasMessageContaining("does not belong");
        assertThat(tokenForm.get()).as("no code was exchanged").isNull();
    }

    @Test
    void shouldAskForAFreshStrongAuthenticationOnAStepUpAndReadAuthTimeAcrAndAmr() throws Exception {
        OidcClient.Begin begin = client.beginStepUp("cGF5bG9hZA", "urn:acme:mfa urn:acme:hwk");
        URI url = begin.authorizationUrl();
        assertThat(query(url, "prompt")).isEqualTo("login");
        assertThat(query(url, "max_age")).isEqualTo("0");
        assertThat(query(url, "acr_values")).isEqualTo("urn:acme:mfa urn:acme:hwk");
        String state = query(url, "state");
        assertThat(client.stepUpPayload(state, begin.loginCookie())).contains("cGF5bG9hZA");
        assertThat(client.stepUpPayload("another", begin.loginCookie())).isEmpty();
        long authTime = Instant.now().getEpochSecond();
        idToken.set(t(n -> signed(claims(query(url, "nonce")).claim("acr", "urn:acme:mfa")
                .claim("amr", List.of("pwd", "otp")).claim("auth_time", authTime).build(), key)));

        OidcClient.StepUp r = client.completeStepUp(state, begin.loginCookie(), "code-2");

        assertThat(r.acr()).isEqualTo("urn:acme:mfa");
        assertThat(r.amr()).containsExactly("pwd", "otp");
        assertThat(r.authTime()).isEqualTo(Instant.ofEpochSecond(authTime));
        assertThat(r.payload()).isEqualTo("cGF5bG9hZA");
        assertThat(r.identity().subject()).isEqualTo("alice-sub");
        // a sign-in cookie is no step-up's, and the other way round
        assertThat(client.isStepUp(begin.loginCookie())).isTrue();
        assertThatThrownBy(() -> client.complete(state, begin.loginCookie(), "code-2"))
                .isInstanceOf(OidcException.class);
    }

    /** The two ways an ID token reaches this service; both run the one validation. */
    enum Mode {
        PAGE_LOGIN, IDP_STEP_UP
    }

    /** Signs in (or steps up) with the ID token {@code token} makes from the request's nonce. */
    private Object attempt(Mode mode, Function<String, String> token) throws Exception {
        OidcClient.Begin begin = mode == Mode.PAGE_LOGIN ? client.begin("/queue")
                : client.beginStepUp("cGF5bG9hZA", "urn:acme:mfa");
        String nonce = query(begin.authorizationUrl(), "nonce");
        idToken.set(code -> token.apply(nonce));
        String state = query(begin.authorizationUrl(), "state");
        return mode == Mode.PAGE_LOGIN ? client.complete(state, begin.loginCookie(), "code-1")
                : client.completeStepUp(state, begin.loginCookie(), "code-1");
    }

    /** A hostile identity provider's tokens, every other claim right: each is refused in both modes. */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> hostileTokens() {
        Instant now = Instant.now();
        List<Object[]> cases = List.of(
                new Object[] {"not valid for an hour (nbf)", (Hostile) (c, n, k) -> c.claims(n)
                        .notBeforeTime(Date.from(now.plusSeconds(3600))).build()},
                new Object[] {"not valid for 2 minutes (nbf beyond the skew)", (Hostile) (c, n, k) -> c.claims(n)
                        .notBeforeTime(Date.from(now.plusSeconds(120))).build()},
                new Object[] {"issued an hour from now (iat)", (Hostile) (c, n, k) -> c.claims(n)
                        .issueTime(Date.from(now.plusSeconds(3600))).expirationTime(Date.from(now.plusSeconds(7200)))
                        .build()},
                new Object[] {"without iat", (Hostile) (c, n, k) -> c.claims(n).issueTime(null).build()},
                new Object[] {"without exp", (Hostile) (c, n, k) -> c.claims(n).expirationTime(null).build()},
                new Object[] {"expired", (Hostile) (c, n, k) -> c.claims(n)
                        .expirationTime(Date.from(now.minusSeconds(120))).build()},
                new Object[] {"another issuer", (Hostile) (c, n, k) -> c.claims(n).issuer("https://evil.example")
                        .build()},
                new Object[] {"another audience", (Hostile) (c, n, k) -> c.claims(n).audience("another-client")
                        .build()},
                new Object[] {"another sign-in's nonce", (Hostile) (c, n, k) -> c.claims("another-sign-in").build()},
                new Object[] {"no org", (Hostile) (c, n, k) -> c.claims(n).claim("org", null).build()});
        return cases.stream().flatMap(h -> java.util.Arrays.stream(Mode.values())
                .map(m -> org.junit.jupiter.params.provider.Arguments.of(m, h[0], h[1])));
    }

    /** Claims of a hostile token from the test's builder, the nonce and the provider's key. */
    interface Hostile {
        JWTClaimsSet claims(OidcClientTest test, String nonce, RSAKey key) throws Exception;
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}: {1}")
    @org.junit.jupiter.params.provider.MethodSource("hostileTokens")
    void shouldRefuseAHostileProvidersTokenInEveryMode(Mode mode, String what, Hostile hostile) {
        assertThatThrownBy(() -> attempt(mode, t(n -> signed(hostile.claims(this, n, key), key))))
                .as(what).isInstanceOf(OidcException.class);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Mode.class)
    void shouldRefuseAnUnsignedOrKeyConfusedTokenInEveryMode(Mode mode) {
        assertThatThrownBy(() -> attempt(mode, t(n -> new PlainJWT(claims(n).build()).serialize())))
                .as("alg none").isInstanceOf(OidcException.class).hasMessageContaining("does not verify");
        assertThatThrownBy(() -> attempt(mode, t(n -> {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("k1").build(),
                    claims(n).build());
            jwt.sign(new MACSigner(key.toPublicKey().getEncoded()));
            return jwt.serialize();
        }))).as("HS256 keyed with the public key").isInstanceOf(OidcException.class)
                .hasMessageContaining("does not verify");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Mode.class)
    void shouldAcceptTimeClaimsWithinTheStatedSkewInEveryMode(Mode mode) throws Exception {
        Instant now = Instant.now();
        Object done = attempt(mode, t(n -> signed(claims(n).notBeforeTime(Date.from(now.plusSeconds(30)))
                .issueTime(Date.from(now.plusSeconds(30))).build(), key)));

        assertThat(done).isNotNull();
        assertThat(OidcClient.CLOCK_SKEW).isEqualTo(java.time.Duration.ofSeconds(60));
    }
}
