package io.actiongate.approver.oidc;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Set;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.GeneralException;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.openid.connect.sdk.AuthenticationRequest;
import com.nimbusds.openid.connect.sdk.Nonce;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponse;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponseParser;
import com.nimbusds.openid.connect.sdk.Prompt;
import com.nimbusds.openid.connect.sdk.claims.ACR;
import com.nimbusds.openid.connect.sdk.claims.AMR;
import com.nimbusds.openid.connect.sdk.claims.IDTokenClaimsSet;
import com.nimbusds.openid.connect.sdk.op.OIDCProviderMetadata;
import com.nimbusds.openid.connect.sdk.validators.IDTokenValidator;

import io.actiongate.approver.review.Identity;
import io.actiongate.approver.web.Sealer;
import io.actiongate.approver.web.Tokens;

/**
 * OpenID Connect relying party: authorization code flow with PKCE (S256), {@code state} and {@code nonce}, against
 * the configured issuer's discovery document. The protocol is the maintained Nimbus OAuth 2.0 / OIDC SDK's: the
 * discovery document ({@link OIDCProviderMetadata}), the authorization request ({@link AuthenticationRequest}), the
 * token request with the code and the PKCE verifier ({@link TokenRequest}) and the ID token's validation
 * ({@link IDTokenValidator}: a signature by the issuer's JWKS with an asymmetric algorithm only, {@code iss},
 * {@code aud}, {@code nonce}), then this service's own time check ({@link #checkTimes}: {@code exp}, {@code iat},
 * {@code nbf} within {@link #CLOCK_SKEW}). This service's own: the pending sign-in sealed into a
 * cookie, the return target, and who the person is (subject and the configured org claim). Nothing about the person
 * comes from a form field or a query parameter.
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

    private record Provider(URI authorizationEndpoint, URI tokenEndpoint, IDTokenValidator validator) {
    }

    private static final Duration LOGIN_TTL = Duration.ofMinutes(10);
    /**
     * The clock skew allowed between this service and the identity provider, for every time claim of an ID token
     * ({@code exp}, {@code iat}, {@code nbf}): docs/approving.md states it.
     */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(60);
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final int READ_TIMEOUT_MS = 10_000;
    /** The ID token's signature algorithms: asymmetric only (never {@code none}, never an HMAC over a public key). */
    static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.PS256, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.EdDSA);

    private final URI issuer;
    private final String clientId;
    private final String clientSecret;
    private final URI redirectUri;
    private final String scopes;
    private final String orgClaim;
    private final Clock clock;
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
        return start(LOGIN_PURPOSE, safeReturn(returnTo), null);
    }

    /**
     * Starts a step-up through the identity provider (the OAuth step-up pattern of RFC 9470): a fresh authorization
     * with {@code prompt=login}, {@code max_age=0} and the configured {@code acr_values}, so the provider
     * authenticates the person again, with its own MFA. {@code payload} (base64url, no line breaks) comes back
     * sealed with the result.
     */
    public Begin beginStepUp(String payload, String acrValues) throws OidcException {
        List<ACR> acr = new ArrayList<>();
        if (acrValues != null && !acrValues.isBlank()) {
            Arrays.stream(acrValues.strip().split("\\s+")).map(ACR::new).forEach(acr::add);
        }
        return start(STEPUP_PURPOSE, payload, acr);
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

    /** {@code stepUpAcr} null: a sign-in; otherwise a step-up asking for these {@code acr_values} (maybe none). */
    private Begin start(String purpose, String payload, List<ACR> stepUpAcr) throws OidcException {
        Provider p = provider();
        Instant now = clock.instant();
        String state = Tokens.random();
        String verifier = Tokens.random();
        String nonce = Tokens.random();
        String cookie = sealer.seal(purpose, new Pending(state, verifier, nonce, payload, now).text());
        AuthenticationRequest.Builder request = new AuthenticationRequest.Builder(ResponseType.CODE,
                Scope.parse(scopes), new ClientID(clientId), redirectUri)
                .endpointURI(p.authorizationEndpoint())
                .state(new State(state))
                .nonce(new Nonce(nonce))
                .codeChallenge(new CodeVerifier(verifier), CodeChallengeMethod.S256);
        if (stepUpAcr != null) {
            request.prompt(Prompt.Type.LOGIN).maxAge(0);
            if (!stepUpAcr.isEmpty()) {
                request.acrValues(stepUpAcr);
            }
        }
        try {
            return new Begin(cookie, request.build().toURI());
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new OidcException("the sign-in request cannot be built: " + e.getMessage(), e);
        }
    }

    /** A step-up's result: who authenticated, when and how, and the payload it was started with. */
    public record StepUp(Identity identity, Instant startedAt, Instant authTime, String acr, List<String> amr,
                         String payload) {
    }

    /** Finishes a step-up started by {@link #beginStepUp}; the caller checks auth_time, acr and amr. */
    public StepUp completeStepUp(String state, String loginCookie, String code) throws OidcException {
        Verified v = verify(STEPUP_PURPOSE, state, loginCookie, code);
        IDTokenClaimsSet claims = v.claims();
        Date authTime = claims.getAuthenticationTime();
        ACR acr = claims.getACR();
        List<AMR> amr = claims.getAMR();
        return new StepUp(identity(v.jwtClaims()), v.pending().createdAt(),
                authTime == null ? null : authTime.toInstant(), acr == null ? null : acr.getValue(),
                amr == null ? List.of() : amr.stream().map(AMR::getValue).toList(), v.pending().returnTo());
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
        return new Completed(identity(v.jwtClaims()), v.pending().returnTo());
    }

    private record Verified(IDTokenClaimsSet claims, JWTClaimsSet jwtClaims, Pending pending) {
    }

    private Verified verify(String purpose, String state, String loginCookie, String code) throws OidcException {
        Pending p = loginCookie == null ? null
                : sealer.open(purpose, loginCookie).map(Pending::parse).orElse(null);
        if (state == null || code == null || code.isBlank() || p == null || !Tokens.same(state, p.state())) {
            throw new OidcException("the sign-in response does not belong to this browser's sign-in");
        }
        if (clock.instant().isAfter(p.createdAt().plus(LOGIN_TTL))) {
            throw new OidcException("the sign-in expired; sign in again");
        }
        Provider prov = provider();
        AuthorizationCodeGrant grant = new AuthorizationCodeGrant(new AuthorizationCode(code), redirectUri,
                new CodeVerifier(p.verifier()));
        TokenRequest request = clientSecret == null
                ? new TokenRequest.Builder(prov.tokenEndpoint(), new ClientID(clientId), grant).build()
                : new TokenRequest.Builder(prov.tokenEndpoint(), new ClientSecretBasic(new ClientID(clientId),
                        new Secret(clientSecret)), grant).build();
        TokenResponse response;
        try {
            response = OIDCTokenResponseParser.parse(bounded(request.toHTTPRequest()).send());
        } catch (IOException e) {
            throw new OidcException("cannot reach the identity provider's token endpoint", e);
        } catch (ParseException e) {
            throw new OidcException("the identity provider's token response does not read");
        }
        if (!response.indicatesSuccess()) {
            throw new OidcException("the identity provider refused the code (HTTP "
                    + response.toErrorResponse().getErrorObject().getHTTPStatusCode() + ")");
        }
        JWT idToken = ((OIDCTokenResponse) response.toSuccessResponse()).getOIDCTokens().getIDToken();
        if (idToken == null) {
            throw new OidcException("the identity provider returned no ID token");
        }
        try {
            IDTokenClaimsSet claims = prov.validator().validate(idToken, new Nonce(p.nonce()));
            JWTClaimsSet jwt = claims.toJWTClaimsSet();
            checkTimes(jwt, clock.instant());
            return new Verified(claims, jwt, p);
        } catch (BadJOSEException | JOSEException | ParseException e) {
            throw new OidcException("the ID token does not verify: " + e.getClass().getSimpleName());
        }
    }

    /**
     * The ID token's time claims against this service's clock, whatever the library checked: {@code exp} and
     * {@code iat} required, the token not expired, not issued in the future, and not valid only later
     * ({@code nbf}), each within {@link #CLOCK_SKEW}. The one check of every sign-in and step-up.
     */
    static void checkTimes(JWTClaimsSet claims, Instant now) throws OidcException {
        Date exp = claims.getExpirationTime();
        Date iat = claims.getIssueTime();
        Date nbf = claims.getNotBeforeTime();
        if (exp == null || iat == null) {
            throw new OidcException("the ID token does not verify: it has no exp or no iat");
        }
        if (!now.minus(CLOCK_SKEW).isBefore(exp.toInstant())) {
            throw new OidcException("the ID token does not verify: it expired (exp)");
        }
        if (iat.toInstant().isAfter(now.plus(CLOCK_SKEW))) {
            throw new OidcException("the ID token does not verify: it is issued in the future (iat)");
        }
        if (nbf != null && nbf.toInstant().isAfter(now.plus(CLOCK_SKEW))) {
            throw new OidcException("the ID token does not verify: it is not valid yet (nbf)");
        }
    }

    /** Every request to the identity provider: bounded in time, redirects not followed. */
    private static HTTPRequest bounded(HTTPRequest r) {
        r.setConnectTimeout(CONNECT_TIMEOUT_MS);
        r.setReadTimeout(READ_TIMEOUT_MS);
        r.setFollowRedirects(false);
        return r;
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
        OIDCProviderMetadata meta;
        try {
            HTTPResponse resp = bounded(new HTTPRequest(HTTPRequest.Method.GET,
                    OIDCProviderMetadata.resolveURL(new Issuer(issuer)))).send();
            if (resp.getStatusCode() != 200) {
                throw new OidcException("the identity provider's discovery document answered HTTP "
                        + resp.getStatusCode());
            }
            meta = OIDCProviderMetadata.parse(resp.getBody());
        } catch (GeneralException e) {
            throw new OidcException("the identity provider's discovery document does not read: " + e.getMessage());
        } catch (IOException e) {
            throw new OidcException("cannot reach the identity provider at " + issuer, e);
        }
        // the issuer as configured, a trailing slash apart; the ID tokens must then name the document's exactly
        if (!stripSlash(meta.getIssuer().getValue()).equals(stripSlash(issuer.toString()))) {
            throw new OidcException("the discovery document names another issuer");
        }
        if (meta.getAuthorizationEndpointURI() == null || meta.getTokenEndpointURI() == null
                || meta.getJWKSetURI() == null) {
            throw new OidcException("the discovery document has no authorization_endpoint, token_endpoint or "
                    + "jwks_uri");
        }
        JWKSource<SecurityContext> keys;
        try {
            keys = JWKSourceBuilder.create(meta.getJWKSetURI().toURL()).build();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new OidcException("the discovery document's jwks_uri is not a URL", e);
        }
        IDTokenValidator validator = new IDTokenValidator(meta.getIssuer(), new ClientID(clientId),
                new JWSVerificationKeySelector<>(ALGORITHMS, keys), null);
        validator.setMaxClockSkew((int) CLOCK_SKEW.toSeconds());
        return new Provider(meta.getAuthorizationEndpointURI(), meta.getTokenEndpointURI(), validator);
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
}
