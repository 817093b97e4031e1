package io.actiongate.mcp;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.nimbusds.jose.JWSAlgorithm;

/**
 * The gateway as an OAuth 2.1 resource server ({@code mcp.gateway.oauth.*}, docs/contract.md section 6, "Who the
 * host is"): whose access tokens it accepts and how it reads a host from them. {@code resource} is null when the
 * gateway derives it from its bind address and port at start; {@code jwksUrl} null when it reads the issuer's
 * metadata; {@code defaultProfile} and {@code taskClaim} null when unset.
 */
public record OAuthSettings(URI issuer, URI resource, URI jwksUrl, List<String> scopes, Set<JWSAlgorithm> algorithms,
        Duration clockSkew, String principalClaim, String orgClaim, String profileClaim, String defaultProfile,
        Set<String> orgs, String taskClaim) {

    /** An org or profile a token may name: what policy keys ({@code grant:ORG:PROFILE}) can hold. */
    static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._@-]{1,128}");

    public OAuthSettings {
        scopes = List.copyOf(scopes);
        algorithms = Set.copyOf(algorithms);
        orgs = Set.copyOf(orgs);
    }

    /** From the parsed {@link GatewayConfig#CONFIG_DEF} values; null when no issuer is set. */
    static OAuthSettings from(Map<String, Object> v) {
        String issuer = string(v, GatewayConfig.OAUTH_ISSUER_CONFIG);
        if (issuer == null) {
            return null;
        }
        String resource = string(v, GatewayConfig.OAUTH_RESOURCE_CONFIG);
        String jwks = string(v, GatewayConfig.OAUTH_JWKS_URL_CONFIG);
        String defaultProfile = string(v, GatewayConfig.OAUTH_DEFAULT_PROFILE_CONFIG);
        if (defaultProfile != null && !NAME.matcher(defaultProfile).matches()) {
            throw new IllegalArgumentException(GatewayConfig.OAUTH_DEFAULT_PROFILE_CONFIG + ": '" + defaultProfile
                    + "' is not a profile (" + NAME.pattern() + ")");
        }
        Set<String> orgs = new LinkedHashSet<>(list(string(v, GatewayConfig.OAUTH_ORGS_CONFIG)));
        for (String org : orgs) {
            if (!NAME.matcher(org).matches()) {
                throw new IllegalArgumentException(GatewayConfig.OAUTH_ORGS_CONFIG + ": '" + org
                        + "' is not an org (" + NAME.pattern() + ")");
            }
        }
        return new OAuthSettings(url(GatewayConfig.OAUTH_ISSUER_CONFIG, issuer),
                resource == null ? null : resource(resource),
                jwks == null ? null : url(GatewayConfig.OAUTH_JWKS_URL_CONFIG, jwks),
                list(string(v, GatewayConfig.OAUTH_SCOPES_CONFIG)),
                algorithms(string(v, GatewayConfig.OAUTH_ALGORITHMS_CONFIG)),
                Duration.ofMillis((Long) v.get(GatewayConfig.OAUTH_CLOCK_SKEW_MS_CONFIG)),
                claim(v, GatewayConfig.OAUTH_PRINCIPAL_CLAIM_CONFIG), claim(v, GatewayConfig.OAUTH_ORG_CLAIM_CONFIG),
                claim(v, GatewayConfig.OAUTH_PROFILE_CLAIM_CONFIG), defaultProfile, orgs,
                string(v, GatewayConfig.OAUTH_TASK_CLAIM_CONFIG));
    }

    /** The same settings with the resource URI the gateway derived at start. */
    OAuthSettings withResource(URI derived) {
        return new OAuthSettings(issuer, derived, jwksUrl, scopes, algorithms, clockSkew, principalClaim, orgClaim,
                profileClaim, defaultProfile, orgs, taskClaim);
    }

    /**
     * The canonical resource URI of a gateway bound to {@code host}:{@code port} when none is configured:
     * {@code http://HOST:PORT/mcp} for a loopback bind address; any other one needs the URL clients use.
     */
    static URI derivedResource(String host, int port) {
        try {
            if (!InetAddress.getByName(host).isLoopbackAddress()) {
                throw new IllegalArgumentException(GatewayConfig.OAUTH_RESOURCE_CONFIG + ": set it to the URL clients "
                        + "use for the gateway (e.g. https://mcp.example.com/mcp); it can be derived only from a "
                        + "loopback bind address, not " + host);
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(GatewayConfig.HOST_CONFIG + ": unknown host " + host, e);
        }
        String h = host.contains(":") ? "[" + host + "]" : host;
        return URI.create("http://" + h + ":" + port + McpGateway.ENDPOINT);
    }

    /** An absolute URL without query or fragment: https, or http to a loopback host (a local dev setup). */
    static URI url(String key, String value) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(key + ": '" + value + "' is not a URL", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || uri.getHost() == null || uri.getRawFragment() != null || uri.getRawQuery() != null
                || !(scheme.equals("https") || scheme.equals("http"))) {
            throw new IllegalArgumentException(key + ": '" + value + "' must be an absolute http(s) URL without query "
                    + "or fragment");
        }
        if (scheme.equals("http") && !loopback(uri.getHost())) {
            throw new IllegalArgumentException(key + ": '" + value + "' must use https (http only on loopback)");
        }
        return uri;
    }

    /** The resource URI in its canonical form: scheme and host in lower case, no trailing slash after a path. */
    static URI resource(String value) {
        URI uri = url(GatewayConfig.OAUTH_RESOURCE_CONFIG, value);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        return URI.create(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + (host.contains(":") && !host.startsWith("[")
                ? "[" + host + "]" : host) + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + path);
    }

    private static boolean loopback(String host) {
        String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return h.equalsIgnoreCase("localhost") || h.startsWith("127.") || h.equals("::1");
    }

    private static Set<JWSAlgorithm> algorithms(String value) {
        Set<JWSAlgorithm> algorithms = new LinkedHashSet<>();
        for (String name : list(value)) {
            JWSAlgorithm alg = JWSAlgorithm.parse(name);
            if (name.equalsIgnoreCase("none") || JWSAlgorithm.Family.HMAC_SHA.contains(alg)) {
                throw new IllegalArgumentException(GatewayConfig.OAUTH_ALGORITHMS_CONFIG + ": " + name + " is refused: "
                        + "an access token must be signed with the issuer's private key (asymmetric algorithms only)");
            }
            if (!JWSAlgorithm.Family.RSA.contains(alg) && !JWSAlgorithm.Family.EC.contains(alg)) {
                throw new IllegalArgumentException(GatewayConfig.OAUTH_ALGORITHMS_CONFIG + ": " + name + " is not one of "
                        + "the RSA or EC signature algorithms (RS256..RS512, PS256..PS512, ES256..ES512)");
            }
            algorithms.add(alg);
        }
        if (algorithms.isEmpty()) {
            throw new IllegalArgumentException(GatewayConfig.OAUTH_ALGORITHMS_CONFIG + ": name at least one algorithm");
        }
        return algorithms;
    }

    private static String claim(Map<String, Object> v, String key) {
        String claim = string(v, key);
        if (claim == null) {
            throw new IllegalArgumentException(key + ": name the claim");
        }
        return claim;
    }

    private static String string(Map<String, Object> v, String key) {
        Object value = v.get(key);
        return value == null || value.toString().isBlank() ? null : value.toString().strip();
    }

    private static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        if (value != null) {
            for (String part : value.split("[,\\s]+")) {
                if (!part.isBlank()) {
                    out.add(part.strip());
                }
            }
        }
        return out;
    }
}
