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
import io.actiongate.approver.web.Sealer;
import io.actiongate.approver.web.Tokens;

/**
 * OpenID Connect relying party: authorization code flow with PKCE (S256), {@code state} and {@code nonce}, against
 * the configured issuer's discovery document. The ID token is verified (signature against the issuer's JWKS,
 * {@code iss}, {@code aud}, {@code exp}, {@code nonce}); the person's subject is {@code sub} and the org the configured
 * claim. Nothing about the person comes from a form field or a query parameter.
 */
public final class OidcClient {

    /** Where to send the browser, and the sealed pending sign-in that the login cookie carries back. */
    public record Begin(String loginCookie, URI authorizationUrl) {
    }

    /** A pending sign-in: never kept by the service, sealed into the browser's login cookie instead. */
    private record Pending(String state, String verifier, String nonce, String returnTo, Instant createdAt) {
        String text() {
            return String.join("\n", state, verifier, nonce, returnTo, Long.toString(createdAt.getEpochSecond()));
        }

        static Pending parse(String text) {
            String[] f = text.split("\n", -1);
            if (f.length != 5) {
                return null;
            }
            try {
                return new Pending(f[0], f[1], f[2], f[3], Instant.ofEpochSecond(Long.parseLong(f[4])));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /** The purpose a login cookie is sealed for (associated data of the encryption). */
    static final String LOGIN_PURPOSE = "actiongate-approver-login-v1";
    /** The purpose a step-up's cookie is sealed for. */
    static final String STEPUP_PURPOSE = "actiongate-approver-stepup-v1";

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
    private final Sealer sealer;
    private volatile Provider provider;

    public OidcClient(URI issuer, String clientId, String clientSecret, URI redirectUri, String scopes,
                      String orgClaim, Clock clock) {
        this(issuer, clientId, clientSecret, redirectUri, scopes, orgClaim, Sealer.random(), clock);
    }

    /** With the sealer of the login cookie; replicas behind one URL share its key. */
    public OidcClient(URI issuer, String clientId, String clientSecret, URI redirectUri, String scopes,
                      String orgClaim, Sealer sealer, Clock clock) {
        this.sealer = sealer;
        this.issuer = issuer;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.redirectUri = redirectUri;
        this.scopes = scopes;
        this.orgClaim = orgClaim;
        this.clock = clock;
    }

    /**
     * Starts a login that will come back to {@code returnTo} (a local path). Nothing is kept here: the PKCE verifier,
     * nonce, state and return target travel sealed in the login cookie, so unauthenticated {@code /login} requests
     * cost no memory, whatever their number, and any replica can finish the sign-in.
     */
    public Begin begin(String returnTo) throws OidcException {
        return start(LOGIN_PURPOSE, safeReturn(returnTo), Map.of());
    }

    /**
     * Starts a step-up through the identity provider (the OAuth step-up pattern of RFC 9470): a fresh authorization
     * with {@code prompt=login}, {@code max_age=0} and the configured {@code acr_values}, so the provider
     * authenticates the person again, with its own MFA. {@code payload} (base64url, no line breaks) comes back
     * sealed with the result.
     */
    public Begin beginStepUp(String payload, String acrValues) throws OidcException {
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("prompt", "login");
        extra.put("max_age", "0");
        if (acrValues != null && !acrValues.isBlank()) {
            extra.put("acr_values", acrValues);
        }
        return start(STEPUP_PURPOSE, payload, extra);
    }

    /** Whether {@code state} is the one of this sign-in cookie (a sign-in, not a step-up, is coming back). */
    public boolean matchesLogin(String state, String loginCookie) {
        return state != null && loginCookie != null && sealer.open(LOGIN_PURPOSE, loginCookie).map(Pending::parse)
                .filter(p -> Tokens.same(state, p.state())).isPresent();
    }

    /**
     * The payload a step-up was started with, when {@code state} is that step-up's own and it has not expired: who
     * the step-up is for is known from the sealed cookie before (and whether or not) the provider's answer verifies,
     * so a failed answer can count against that person's step-up lock.
     */
    public java.util.Optional<String> stepUpPayload(String state, String stepUpCookie) {
        if (state == null || stepUpCookie == null) {
            return java.util.Optional.empty();
        }
        return sealer.open(STEPUP_PURPOSE, stepUpCookie).map(Pending::parse)
                .filter(p -> Tokens.same(state, p.state()))
                .filter(p -> !clock.instant().isAfter(p.createdAt().plus(LOGIN_TTL)))
                .map(Pending::returnTo);
    }

    /** Whether this login cookie belongs to a step-up (not a sign-in). */
    public boolean isStepUp(String loginCookie) {
        return loginCookie != null && sealer.open(STEPUP_PURPOSE, loginCookie).isPresent();
    }

    private Begin start(String purpose, String payload, Map<String, String> extra) throws OidcException {
        Provider p = provider();
        Instant now = clock.instant();
        String state = Tokens.random();
        String verifier = Tokens.random();
        String nonce = Tokens.random();
        String cookie = sealer.seal(purpose, new Pending(state, verifier, nonce, payload, now).text());
        Map<String, String> q = new LinkedHashMap<>();
        q.put("response_type", "code");
        q.put("client_id", clientId);
        q.put("redirect_uri", redirectUri.toString());
        q.put("scope", scopes);
        q.put("state", state);
        q.put("nonce", nonce);
        q.put("code_challenge", s256(verifier));
        q.put("code_challenge_method", "S256");
        q.putAll(extra);
        String sep = p.authorizationEndpoint().getRawQuery() == null ? "?" : "&";
        return new Begin(cookie, URI.create(p.authorizationEndpoint() + sep + form(q)));
    }

    /** A step-up's result: who authenticated, when and how, and the payload it was started with. */
    public record StepUp(Identity identity, Instant startedAt, Instant authTime, String acr, List<String> amr,
                         String payload) {
    }

    /** Finishes a step-up started by {@link #beginStepUp}; the caller checks auth_time, acr and amr. */
    public StepUp completeStepUp(String state, String loginCookie, String code) throws OidcException {
        Verified v = verify(STEPUP_PURPOSE, state, loginCookie, code);
        JWTClaimsSet claims = v.claims();
        Instant authTime;
        try {
            java.util.Date d = claims.getDateClaim("auth_time");
            authTime = d == null ? null : d.toInstant();
        } catch (java.text.ParseException e) {
            authTime = null;
        }
        String acr;
        List<String> amr;
        try {
            acr = claims.getStringClaim("acr");
            List<String> a = claims.getStringListClaim("amr");
            amr = a == null ? List.of() : List.copyOf(a);
        } catch (java.text.ParseException e) {
            throw new OidcException("the ID token's acr or amr is malformed");
        }
        return new StepUp(identity(claims), v.pending().createdAt(), authTime, acr, amr, v.pending().returnTo());
    }

    /** A login's result: who signed in and where they wanted to go. */
    public record Completed(Identity identity, String returnTo) {
    }

    /**
     * Finishes the login whose {@code state} came back on the callback, with the login cookie this browser got from
     * {@link #begin}. The callback clears the cookie, and the authorization code is single use at the identity
     * provider (and bound to the cookie's PKCE verifier), so a replayed callback signs nobody in.
     */
    public Completed complete(String state, String loginCookie, String code) throws OidcException {
        Verified v = verify(LOGIN_PURPOSE, state, loginCookie, code);
        return new Completed(identity(v.claims()), v.pending().returnTo());
    }

    private record Verified(JWTClaimsSet claims, Pending pending) {
    }

    private Verified verify(String purpose, String state, String loginCookie, String code) throws OidcException {
        Pending p = loginCookie == null ? null
                : sealer.open(purpose, loginCookie).map(Pending::parse).orElse(null);
        if (state == null || code == null || p == null || !Tokens.same(state, p.state())) {
            throw new OidcException("the sign-in response does not belong to this browser's sign-in");
        }
        if (clock.instant().isAfter(p.createdAt().plus(LOGIN_TTL))) {
            throw new OidcException("the sign-in expired; sign in again");
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
        return new Verified(claims, p);
    }

    private Identity identity(JWTClaimsSet claims) throws OidcException {
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
        String mail = email instanceof String s ? s : null;
        String display = name instanceof String n ? n : null;
        if (subject.length() > 256 || orgId.length() > 256 || (mail != null && mail.length() > 256)
                || (display != null && display.length() > 256)) {
            throw new OidcException("the ID token's subject, org, email or name is longer than 256 characters");
        }
        return new Identity(subject, orgId, mail, display);
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

    /** Where a sign-in lands when the return target is missing or refused. */
    public static final String DEFAULT_RETURN = "/queue";

    /**
     * The return target after sign-in, checked the way a browser's URL parser will read it: a path on this origin
     * only. Browsers drop tab, CR and LF anywhere in a URL, strip leading and trailing spaces and control characters
     * and read a backslash as a slash, so {@code /<TAB>/evil.example} becomes {@code //evil.example}, another host.
     * Rather than predict every such rewrite, only the characters of a plain RFC 3986 path and query are accepted
     * (no control character, space, backslash, quote or non-ASCII), it must start with exactly one slash, and it must
     * resolve against a placeholder origin to that same origin. Anything else lands on {@link #DEFAULT_RETURN}.
     */
    public static String safeReturn(String r) {
        if (r == null || r.isEmpty() || r.length() > 512 || r.charAt(0) != '/'
                || (r.length() > 1 && (r.charAt(1) == '/' || r.charAt(1) == '\\'))) {
            return DEFAULT_RETURN;
        }
        for (int i = 0; i < r.length(); i++) {
            char c = r.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "-._~!$&()*+,;=:@/?%".indexOf(c) >= 0;
            if (!plain) {
                return DEFAULT_RETURN;
            }
        }
        try {
            URI base = URI.create("https://approver.invalid");
            URI resolved = base.resolve(r);
            if (!"https".equals(resolved.getScheme()) || !"approver.invalid".equals(resolved.getHost())
                    || resolved.getPort() != -1 || resolved.getRawUserInfo() != null) {
                return DEFAULT_RETURN;
            }
        } catch (IllegalArgumentException e) {
            return DEFAULT_RETURN;
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
