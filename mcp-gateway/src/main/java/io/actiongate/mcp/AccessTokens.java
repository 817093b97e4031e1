package io.actiongate.mcp;

import java.net.MalformedURLException;
import java.net.URI;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

import io.actiongate.key.ActionKey;

/**
 * Validates OAuth 2.1 access tokens as the gateway's resource server (docs/contract.md section 6, "Who the host
 * is"): a JWS-signed JWT, its {@code alg} one of the allowed asymmetric algorithms, its signature by a key of the
 * issuer's JWKS (cached; fetched again, rate-limited, when a token names a key the cache does not hold, so a rotated
 * key is picked up), {@code iss}, {@code aud} holding the gateway's resource URI, {@code exp}/{@code nbf}/{@code iat}
 * within the clock skew, the required scopes, and the principal, org and profile from their claims. Every refusal
 * names what failed; none names the token.
 */
final class AccessTokens {

    /** What a token proved: the host, and the task its claim names (when one is configured and present). */
    record Valid(HostIdentity host, Optional<String> task) {
    }

    /**
     * Why a token proved nothing: {@code status} 401 ({@code invalid_token}), 403 ({@code insufficient_scope}) or 503
     * (the issuer's keys could not be read: the token may be fine, so it is not called invalid).
     */
    record Refusal(int status, String error, String description) {
        static Refusal invalid(String description) {
            return new Refusal(401, "invalid_token", description);
        }
    }

    /** The result of {@link #check}: exactly one of the two is set. */
    record Check(Valid valid, Refusal refusal) {
    }

    /** Token types accepted in the JOSE header: RFC 9068's {@code at+jwt}, plain {@code JWT}, or none. */
    private static final Set<JOSEObjectType> TYPES = Set.of(new JOSEObjectType("at+jwt"),
            new JOSEObjectType("application/at+jwt"), JOSEObjectType.JWT);
    /** Fetching the issuer's JWKS: connect and read timeouts, size limit. */
    private static final int HTTP_TIMEOUT_MS = 3_000;
    private static final int JWKS_SIZE_LIMIT = 256 * 1024;
    /** Unknown keys make the JWKS be fetched again at most this often (nimbus' rate limiter). */
    static final Duration JWKS_MIN_REFRESH = Duration.ofSeconds(30);

    private final OAuthSettings settings;
    private final Clock clock;
    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

    AccessTokens(OAuthSettings settings, URI jwksUrl) {
        this(settings, jwksUrl, Clock.systemUTC(), JWKS_MIN_REFRESH);
    }

    /** {@code minRefresh}: how often an unknown key may make the JWKS be fetched again (tests shorten it). */
    AccessTokens(OAuthSettings settings, URI jwksUrl, Clock clock, Duration minRefresh) {
        if (settings.resource() == null) {
            throw new IllegalStateException("the resource URI is derived before tokens are checked");
        }
        this.settings = settings;
        this.clock = clock;
        JWKSource<SecurityContext> keys;
        try {
            keys = JWKSourceBuilder.<SecurityContext>create(jwksUrl.toURL(),
                            new DefaultResourceRetriever(HTTP_TIMEOUT_MS, HTTP_TIMEOUT_MS, JWKS_SIZE_LIMIT))
                    .cache(Duration.ofMinutes(5).toMillis(), Duration.ofSeconds(15).toMillis())
                    .rateLimited(minRefresh.toMillis())
                    .retrying(true)
                    .build();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(GatewayConfig.OAUTH_JWKS_URL_CONFIG + ": " + jwksUrl, e);
        }
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(settings.algorithms(), keys));
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(withNull(TYPES)));
        // the claims are checked below, each with its own refusal
        processor.setJWTClaimsSetVerifier((claims, context) -> { });
    }

    private static Set<JOSEObjectType> withNull(Set<JOSEObjectType> types) {
        Set<JOSEObjectType> s = new java.util.HashSet<>(types);
        s.add(null);
        return s;
    }

    /** Checks {@code token} (the bearer value, never logged). */
    Check check(String token) {
        JWT jwt;
        try {
            jwt = JWTParser.parse(token);
        } catch (ParseException e) {
            return refused(Refusal.invalid("the access token is not a JWT"));
        }
        if (!(jwt instanceof SignedJWT signed)) {
            // a PlainJWT (alg none) or an encrypted one: nothing here proves who signed it
            return refused(Refusal.invalid(jwt instanceof com.nimbusds.jwt.PlainJWT
                    ? "the access token is unsigned (alg none)" : "an encrypted access token is not accepted"));
        }
        JWSAlgorithm alg = signed.getHeader().getAlgorithm();
        if (!settings.algorithms().contains(alg)) {
            return refused(Refusal.invalid("the access token's algorithm " + alg + " is not accepted"));
        }
        JWTClaimsSet claims;
        try {
            claims = processor.process(signed, null);
        } catch (BadJWSException e) {
            return refused(Refusal.invalid("the access token's signature does not verify"));
        } catch (KeySourceException e) {
            return refused(new Refusal(503, "temporarily_unavailable",
                    "the issuer's keys could not be read; try again"));
        } catch (BadJOSEException e) {
            String message = String.valueOf(e.getMessage());
            return refused(Refusal.invalid(message.contains("typ") ? "the access token's type (typ) is not accepted"
                    : "no key of the issuer signed the access token"));
        } catch (com.nimbusds.jose.JOSEException e) {
            return refused(Refusal.invalid("the access token's signature could not be checked"));
        }
        return claims(claims);
    }

    private Check claims(JWTClaimsSet claims) {
        if (!settings.issuer().toString().equals(claims.getIssuer())) {
            return refused(Refusal.invalid("the access token is of another issuer"));
        }
        List<String> audience = claims.getAudience();
        if (audience == null || !audience.contains(settings.resource().toString())) {
            return refused(Refusal.invalid("the access token is for another audience, not " + settings.resource()));
        }
        Instant now = clock.instant();
        Duration skew = settings.clockSkew();
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            return refused(Refusal.invalid("the access token has no expiry (exp)"));
        }
        if (!now.isBefore(exp.toInstant().plus(skew))) {
            return refused(Refusal.invalid("the access token expired"));
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && now.plus(skew).isBefore(nbf.toInstant())) {
            return refused(Refusal.invalid("the access token is not valid yet (nbf)"));
        }
        Date iat = claims.getIssueTime();
        if (iat != null && now.plus(skew).isBefore(iat.toInstant())) {
            return refused(Refusal.invalid("the access token was issued in the future (iat)"));
        }
        Set<String> granted = scopes(claims);
        List<String> missing = settings.scopes().stream().filter(s -> !granted.contains(s)).toList();
        if (!missing.isEmpty()) {
            return refused(new Refusal(403, "insufficient_scope", "the access token lacks the scope "
                    + String.join(" ", missing)));
        }
        String principal = string(claims, settings.principalClaim());
        if (principal == null || principal.length() > 256 || principal.chars().anyMatch(Character::isISOControl)) {
            return refused(Refusal.invalid("the access token names no principal (" + settings.principalClaim() + ")"));
        }
        String org = string(claims, settings.orgClaim());
        if (org == null || !OAuthSettings.NAME.matcher(org).matches()) {
            return refused(Refusal.invalid("the access token names no org (" + settings.orgClaim() + ")"));
        }
        if (!settings.orgs().isEmpty() && !settings.orgs().contains(org)) {
            return refused(Refusal.invalid("the access token is of an org this gateway does not serve"));
        }
        String profile = Optional.ofNullable(string(claims, settings.profileClaim())).orElse(settings.defaultProfile());
        if (profile == null || !OAuthSettings.NAME.matcher(profile).matches()) {
            return refused(Refusal.invalid("the access token names no profile (" + settings.profileClaim() + ")"));
        }
        Optional<String> task = Optional.empty();
        if (settings.taskClaim() != null) {
            String named = string(claims, settings.taskClaim());
            if (named != null && !ActionKey.isValidId(named)) {
                return refused(Refusal.invalid("the access token's task claim is not a task id"));
            }
            task = Optional.ofNullable(named);
        }
        return new Check(new Valid(new HostIdentity(principal, org, profile), task), null);
    }

    /** {@code scope} (RFC 9068, space-separated) and {@code scp} (a list, or a string) together. */
    private static Set<String> scopes(JWTClaimsSet claims) {
        Set<String> scopes = new LinkedHashSet<>();
        for (String name : List.of("scope", "scp")) {
            Object value = claims.getClaim(name);
            if (value instanceof String s) {
                scopes.addAll(List.of(s.strip().split("\\s+")));
            } else if (value instanceof List<?> list) {
                list.forEach(v -> scopes.add(String.valueOf(v)));
            }
        }
        return scopes;
    }

    private static String string(JWTClaimsSet claims, String name) {
        Object value = claims.getClaim(name);
        return value instanceof String s && !s.isBlank() ? s : null;
    }

    private static Check refused(Refusal refusal) {
        return new Check(null, refusal);
    }

    /** The {@code jwks_uri} of {@code issuer}'s metadata, or the configured one. */
    static URI jwksUrl(OAuthSettings settings) {
        return settings.jwksUrl() != null ? settings.jwksUrl() : IssuerMetadata.jwksUri(settings.issuer());
    }
}
