package io.actiongate.approver.oidc;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

import io.actiongate.approver.review.Identity;
import io.actiongate.approver.web.Tokens;

/**
 * OpenID Connect relying party: authorization code flow with PKCE (S256), {@code state} and {@code nonce}, against
 * the configured issuer's discovery document. The ID token is verified (signature against the issuer's JWKS,
 * {@code iss}, {@code aud}, {@code exp}, {@code nonce}); the person's subject is {@code sub} and the org the configured
 * claim. Nothing about the person comes from a form field or a query parameter.
 */
public final class OidcClient {

    /** Where to send the browser, and the state value that the login cookie must carry back. */
    public record Begin(String state, URI authorizationUrl) {
    }

    private record Pending(String verifier, String nonce, String returnTo, Instant createdAt) {
    }

    private record Provider(URI authorizationEndpoint, URI tokenEndpoint, DefaultJWTProcessor<SecurityContext> jwt) {
    }

    private static final Duration LOGIN_TTL = Duration.ofMinutes(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI issuer;
    private final String clientId;
    private final String clientSecret;
    private final URI redirectUri;
    private final String scopes;
    private final String orgClaim;
    private final Clock clock;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    private volatile Provider provider;

    public OidcClient(URI issuer, String clientId, String clientSecret, URI redirectUri, String scopes,
                      String orgClaim, Clock clock) {
        this.issuer = issuer;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.redirectUri = redirectUri;
        this.scopes = scopes;
        this.orgClaim = orgClaim;
        this.clock = clock;
    }

    /** Starts a login that will come back to {@code returnTo} (a local path). */
    public Begin begin(String returnTo) throws OidcException {
        Provider p = provider();
        Instant now = clock.instant();
        pending.values().removeIf(x -> now.isAfter(x.createdAt().plus(LOGIN_TTL)));
        String state = Tokens.random();
        String verifier = Tokens.random();
        String nonce = Tokens.random();
        pending.put(state, new Pending(verifier, nonce, safeReturn(returnTo), now));
        Map<String, String> q = new LinkedHashMap<>();
        q.put("response_type", "code");
        q.put("client_id", clientId);
        q.put("redirect_uri", redirectUri.toString());
        q.put("scope", scopes);
        q.put("state", state);
        q.put("nonce", nonce);
        q.put("code_challenge", s256(verifier));
        q.put("code_challenge_method", "S256");
        String sep = p.authorizationEndpoint().getRawQuery() == null ? "?" : "&";
        return new Begin(state, URI.create(p.authorizationEndpoint() + sep + form(q)));
    }

    /** A login's result: who signed in and where they wanted to go. */
    public record Completed(Identity identity, String returnTo) {
    }

    /**
     * Finishes the login whose {@code state} came back on the callback and whose login cookie carried
     * {@code cookieState}. The state is single use.
     */
    public Completed complete(String state, String cookieState, String code) throws OidcException {
        if (state == null || code == null || !Tokens.same(state, cookieState)) {
            throw new OidcException("the sign-in response does not belong to this browser's sign-in");
        }
        Pending p = pending.remove(state);
        if (p == null || clock.instant().isAfter(p.createdAt().plus(LOGIN_TTL))) {
            throw new OidcException("the sign-in expired or was already used; sign in again");
        }
        Provider prov = provider();
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", redirectUri.toString());
        form.put("client_id", clientId);
        form.put("code_verifier", p.verifier());
        HttpRequest.Builder req = HttpRequest.newBuilder(prov.tokenEndpoint()).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
        if (clientSecret != null) {
            String basic = enc(clientId) + ":" + enc(clientSecret);
            req.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
        }
        JsonNode tokens;
        try {
            HttpResponse<String> resp = http.send(req.POST(HttpRequest.BodyPublishers.ofString(form(form))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                throw new OidcException("the identity provider refused the code (HTTP " + resp.statusCode() + ")");
            }
            tokens = JSON.readTree(resp.body());
        } catch (IOException e) {
            throw new OidcException("cannot reach the identity provider's token endpoint", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OidcException("interrupted", e);
        }
        JsonNode idToken = tokens.get("id_token");
        if (idToken == null || !idToken.isTextual()) {
            throw new OidcException("the identity provider returned no ID token");
        }
        JWTClaimsSet claims;
        try {
            claims = prov.jwt().process(idToken.asText(), null);
        } catch (java.text.ParseException | BadJOSEException | JOSEException e) {
            throw new OidcException("the ID token does not verify: " + e.getClass().getSimpleName());
        }
        if (!p.nonce().equals(claims.getClaim("nonce"))) {
            throw new OidcException("the ID token's nonce does not match this sign-in");
        }
        String subject = claims.getSubject();
        Object org = claims.getClaim(orgClaim);
        if (org instanceof List<?> list && list.size() == 1) {
            org = list.get(0);
        }
        if (subject == null || subject.isBlank() || !(org instanceof String orgId) || orgId.isBlank()) {
            throw new OidcException("the ID token has no subject or no single '" + orgClaim + "' claim");
        }
        Object email = claims.getClaim("email");
        Object name = claims.getClaim("name");
        return new Completed(new Identity(subject, orgId, email instanceof String s ? s : null,
                name instanceof String n ? n : null), p.returnTo());
    }

    private Provider provider() throws OidcException {
        Provider p = provider;
        if (p != null) {
            return p;
        }
        synchronized (this) {
            if (provider == null) {
                provider = discover();
            }
            return provider;
        }
    }

    private Provider discover() throws OidcException {
        String base = issuer.toString().endsWith("/") ? issuer.toString() : issuer + "/";
        URI wellKnown = URI.create(base + ".well-known/openid-configuration");
        JsonNode doc;
        try {
            HttpResponse<String> resp = http.send(HttpRequest.newBuilder(wellKnown).timeout(Duration.ofSeconds(10))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200) {
                throw new OidcException("the identity provider's discovery document answered HTTP "
                        + resp.statusCode());
            }
            doc = JSON.readTree(resp.body());
        } catch (IOException e) {
            throw new OidcException("cannot reach the identity provider at " + wellKnown, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OidcException("interrupted", e);
        }
        String iss = text(doc, "issuer");
        if (!stripSlash(iss).equals(stripSlash(issuer.toString()))) {
            throw new OidcException("the discovery document names another issuer");
        }
        URI authz = URI.create(text(doc, "authorization_endpoint"));
        URI token = URI.create(text(doc, "token_endpoint"));
        JWKSource<SecurityContext> keys;
        try {
            keys = JWKSourceBuilder.create(URI.create(text(doc, "jwks_uri")).toURL()).build();
        } catch (MalformedURLException e) {
            throw new OidcException("the discovery document's jwks_uri is not a URL", e);
        }
        DefaultJWTProcessor<SecurityContext> jwt = new DefaultJWTProcessor<>();
        Set<JWSAlgorithm> algs = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
                JWSAlgorithm.PS256, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.EdDSA);
        jwt.setJWSKeySelector(new JWSVerificationKeySelector<>(algs, keys));
        jwt.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(clientId,
                new JWTClaimsSet.Builder().issuer(iss).build(),
                new HashSet<>(List.of("sub", "iat", "exp", "nonce"))));
        return new Provider(authz, token, jwt);
    }

    private static String text(JsonNode doc, String field) throws OidcException {
        JsonNode n = doc.get(field);
        if (n == null || !n.isTextual() || n.asText().isBlank()) {
            throw new OidcException("the discovery document has no " + field);
        }
        return n.asText();
    }

    private static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    /** Only local absolute paths, never another host ({@code //evil}, {@code /\evil}) or a scheme. */
    static String safeReturn(String r) {
        if (r == null || !r.startsWith("/") || r.startsWith("//") || r.startsWith("/\\") || r.contains("\r")
                || r.contains("\n") || r.length() > 512) {
            return "/queue";
        }
        return r;
    }

    static String s256(String verifier) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Tokens.b64(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String form(Map<String, String> m) {
        return m.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
