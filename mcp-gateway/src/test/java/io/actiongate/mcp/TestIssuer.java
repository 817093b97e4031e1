package io.actiongate.mcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;

/**
 * An authorization server for tests, on loopback: its metadata ({@code /issuer/.well-known/openid-configuration}),
 * its JWKS ({@code /issuer/jwks}, counting fetches), and access tokens signed with its current RSA key. {@link #rotate}
 * replaces the key (new {@code kid}), as an issuer rotating its keys does.
 */
final class TestIssuer implements AutoCloseable {

    static final String ORG = "acme";
    static final String PROFILE = "chat-default";
    static final String SCOPE = "actiongate:mcp";

    private final HttpServer http;
    private final AtomicInteger jwksFetches = new AtomicInteger();
    private volatile RSAKey key;
    private volatile boolean jwksDown;

    TestIssuer() throws IOException, JOSEException {
        key = newKey();
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/issuer/jwks", ex -> {
            jwksFetches.incrementAndGet();
            if (jwksDown) {
                ex.sendResponseHeaders(503, -1);
                ex.close();
                return;
            }
            answer(ex, new JWKSet(key.toPublicJWK()).toString());
        });
        http.createContext("/issuer/.well-known/openid-configuration", ex -> answer(ex, "{\"issuer\":\"" + issuer()
                + "\",\"jwks_uri\":\"" + issuer() + "/jwks\",\"authorization_endpoint\":\"" + issuer()
                + "/authorize\",\"token_endpoint\":\"" + issuer() + "/token\"}"));
        http.start();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange ex, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    private static RSAKey newKey() throws JOSEException {
        return new RSAKeyGenerator(2048).keyID(UUID.randomUUID().toString()).algorithm(JWSAlgorithm.RS256).generate();
    }

    String issuer() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/issuer";
    }

    URI jwks() {
        return URI.create(issuer() + "/jwks");
    }

    RSAKey key() {
        return key;
    }

    int jwksFetches() {
        return jwksFetches.get();
    }

    void jwksDown(boolean down) {
        jwksDown = down;
    }

    /** A new signing key with a new kid; the JWKS serves only it from now on. */
    void rotate() throws JOSEException {
        key = newKey();
    }

    /** The claims of a valid token for {@code resource}, for a test to alter. */
    JWTClaimsSet.Builder claims(String resource) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(issuer()).subject("user-1").audience(List.of(resource))
                .issueTime(Date.from(now)).notBeforeTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(600)))
                .claim("scope", SCOPE).claim("org", ORG).claim("actiongate_profile", PROFILE)
                .jwtID(UUID.randomUUID().toString());
    }

    /** A token for {@code resource}, its claims altered by {@code alter}, signed with the current key. */
    String token(String resource, Consumer<JWTClaimsSet.Builder> alter) throws JOSEException {
        JWTClaimsSet.Builder claims = claims(resource);
        alter.accept(claims);
        return sign(key, claims.build());
    }

    static String sign(RSAKey key, JWTClaimsSet claims) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID())
                .type(new JOSEObjectType("at+jwt")).build(), claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    /** The settings a gateway trusting this issuer for {@code resource} uses ({@code extra} overrides). */
    Map<String, String> gatewayConfig(String resource, Map<String, String> extra) {
        Map<String, String> c = new java.util.HashMap<>();
        c.put(GatewayConfig.OAUTH_ISSUER_CONFIG, issuer());
        c.put(GatewayConfig.OAUTH_RESOURCE_CONFIG, resource);
        c.put(GatewayConfig.OAUTH_SCOPES_CONFIG, SCOPE);
        c.putAll(extra);
        return c;
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
