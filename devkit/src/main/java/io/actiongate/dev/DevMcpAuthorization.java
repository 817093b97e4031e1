package io.actiongate.dev;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.TokenRequest;
import no.nav.security.mock.oauth2.http.OAuth2HttpRequest;
import no.nav.security.mock.oauth2.http.OAuth2HttpResponse;
import no.nav.security.mock.oauth2.http.Route;
import okhttp3.Headers;
import okhttp3.HttpUrl;

/**
 * What the dev kit's identity provider adds for MCP clients, so that a client configured with only the MCP gateway's
 * URL signs in the way hosted clients do (docs/tool-hosts.md, "OAuth"): RFC 8414 metadata naming a
 * {@code registration_endpoint}, dynamic client registration (RFC 7591; public clients, redirect URIs on loopback or
 * https), and the authorization-code flow with PKCE and the {@code resource} indicator (RFC 8707), whose access
 * token names that resource as its audience and carries the scopes asked for and the demo profile. The provider is
 * an OpenID provider that wants {@code openid} in every authorization request; a request without it (an OAuth-only
 * client) is sent on with it added. Dev kit only, like the provider itself.
 */
final class DevMcpAuthorization {

    /** The scope the dev MCP gateway requires (mcp.gateway.oauth.scopes). */
    static final String MCP_SCOPE = "actiongate:mcp";
    /** The claim the gateway reads the profile from (mcp.gateway.oauth.profile.claim's default). */
    static final String PROFILE_CLAIM = "actiongate_profile";
    /** Marks an authorization request this class has seen, so the provider handles it the second time. */
    static final String SEEN = "actiongate_mcp";
    static final String CLIENT_PREFIX = "dev-mcp-";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_PENDING = 10_000;

    /** A registered client's redirect URIs, by client id. */
    private final Map<String, List<String>> clients = new ConcurrentHashMap<>();
    /**
     * What an authorization request asked for, by its PKCE code challenge (the token request proves the verifier);
     * the oldest are forgotten first.
     */
    private final Map<String, String> scopes = java.util.Collections.synchronizedMap(
            new LinkedHashMap<String, String>(64, 0.75f, false) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                    return size() > MAX_PENDING;
                }
            });
    private final String issuerId;

    DevMcpAuthorization(String issuerId) {
        this.issuerId = issuerId;
    }

    Route[] routes() {
        return new Route[] {metadata(), registration(), authorization()};
    }

    /** The claims a token for a resource (an MCP gateway) gets beyond the provider's own. */
    Map<String, Object> resourceClaims(TokenRequest request) {
        Map<String, Object> claims = new LinkedHashMap<>();
        if (request.getResources() == null || request.getResources().isEmpty()) {
            return claims;
        }
        claims.put(PROFILE_CLAIM, DemoPolicy.PROFILE);
        String scope = null;
        if (request.getAuthorizationGrant() instanceof AuthorizationCodeGrant code && code.getCodeVerifier() != null) {
            // asked once for the ID token and once for the access token of the same request
            scope = scopes.get(challenge(code.getCodeVerifier().getValue()));
        }
        if (scope == null && request.getScope() != null) {
            scope = withoutOpenId(request.getScope().toString());
        }
        if (scope != null && !scope.isBlank()) {
            claims.put("scope", scope);
        }
        return claims;
    }

    /** RFC 8414 metadata, at the path-insertion form and at the form appended to the issuer. */
    private Route metadata() {
        return route(r -> "GET".equals(r.getMethod())
                && (path(r).equals("/.well-known/oauth-authorization-server/" + issuerId)
                || path(r).equals("/" + issuerId + "/.well-known/oauth-authorization-server")), r -> {
                    String issuer = origin(r.getUrl()) + "/" + issuerId;
                    Map<String, Object> doc = new LinkedHashMap<>();
                    doc.put("issuer", issuer);
                    doc.put("authorization_endpoint", issuer + "/authorize");
                    doc.put("token_endpoint", issuer + "/token");
                    doc.put("registration_endpoint", issuer + "/register");
                    doc.put("jwks_uri", issuer + "/jwks");
                    doc.put("revocation_endpoint", issuer + "/revoke");
                    doc.put("response_types_supported", List.of("code"));
                    doc.put("grant_types_supported", List.of("authorization_code", "refresh_token"));
                    doc.put("code_challenge_methods_supported", List.of("S256"));
                    doc.put("token_endpoint_auth_methods_supported", List.of("none"));
                    doc.put("scopes_supported", List.of("openid", MCP_SCOPE));
                    return json(200, doc);
                });
    }

    /** RFC 7591: a public client, its redirect URIs on loopback (http) or https, or a native app's own scheme. */
    private Route registration() {
        return route(r -> "POST".equals(r.getMethod()) && path(r).equals("/" + issuerId + "/register"), r -> {
            JsonNode body;
            try {
                body = JSON.readTree(r.getBody() == null ? "" : r.getBody());
            } catch (JsonProcessingException e) {
                return error(400, "invalid_client_metadata", "the body is not JSON");
            }
            List<String> redirects = new ArrayList<>();
            body.path("redirect_uris").forEach(u -> redirects.add(u.asText()));
            if (redirects.isEmpty()) {
                return error(400, "invalid_redirect_uri", "name at least one redirect URI");
            }
            for (String uri : redirects) {
                if (!allowedRedirect(uri)) {
                    return error(400, "invalid_redirect_uri", "a redirect URI must be https, http on loopback, or a "
                            + "native app's own scheme, without a fragment: " + uri);
                }
            }
            if (clients.size() >= MAX_PENDING) {
                return error(400, "invalid_client_metadata", "too many clients registered in this dev run");
            }
            String id = CLIENT_PREFIX + UUID.randomUUID();
            clients.put(id, List.copyOf(redirects));
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("client_id", id);
            doc.put("client_id_issued_at", Instant.now().getEpochSecond());
            doc.put("redirect_uris", redirects);
            doc.put("grant_types", List.of("authorization_code", "refresh_token"));
            doc.put("response_types", List.of("code"));
            doc.put("token_endpoint_auth_method", "none");
            if (body.hasNonNull("client_name")) {
                doc.put("client_name", body.path("client_name").asText());
            }
            if (body.hasNonNull("scope")) {
                doc.put("scope", body.path("scope").asText());
            }
            return json(201, doc);
        });
    }

    /**
     * An authorization request for a resource, or without {@code openid}: a registered client's redirect URI must be
     * one it registered, PKCE (S256) is required, and the scopes asked for are kept for the token; then the request
     * goes on to the provider's login form with {@code openid} added.
     */
    private Route authorization() {
        return route(r -> "GET".equals(r.getMethod()) && path(r).equals("/" + issuerId + "/authorize")
                && r.getUrl().queryParameter(SEEN) == null
                && (r.getUrl().queryParameter("resource") != null || !hasOpenId(r.getUrl().queryParameter("scope"))),
                r -> {
                    HttpUrl url = r.getUrl();
                    String client = url.queryParameter("client_id");
                    List<String> registered = client == null ? null : clients.get(client);
                    if (client != null && client.startsWith(CLIENT_PREFIX)
                            && (registered == null || !registered.contains(url.queryParameter("redirect_uri")))) {
                        // never redirect to a URI the client did not register
                        return error(400, "invalid_request", "the redirect_uri is not one the client registered");
                    }
                    String challenge = url.queryParameter("code_challenge");
                    if (challenge == null || !"S256".equals(url.queryParameter("code_challenge_method"))) {
                        return error(400, "invalid_request", "PKCE with S256 is required");
                    }
                    String scope = url.queryParameter("scope");
                    scopes.put(challenge, withoutOpenId(scope == null ? "" : scope));
                    HttpUrl next = url.newBuilder()
                            .setQueryParameter("scope", hasOpenId(scope) ? scope : ("openid " + (scope == null ? ""
                                    : scope)).strip())
                            .addQueryParameter(SEEN, "1").build();
                    return new OAuth2HttpResponse(Headers.of("Location", next.toString()), 302, "", null);
                });
    }

    static boolean allowedRedirect(String uri) {
        try {
            URI u = new URI(uri);
            if (!u.isAbsolute() || u.getRawFragment() != null) {
                return false;
            }
            String scheme = u.getScheme().toLowerCase(java.util.Locale.ROOT);
            if (scheme.equals("https")) {
                return u.getHost() != null;
            }
            if (scheme.equals("http")) {
                String host = u.getHost() == null ? "" : u.getHost();
                return host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]");
            }
            // a native app's private-use scheme (RFC 8252), e.g. com.example.app:/callback
            return !scheme.equals("javascript") && !scheme.equals("data") && !scheme.equals("file");
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private static boolean hasOpenId(String scope) {
        return scope != null && List.of(scope.split("\\s+")).contains("openid");
    }

    private static String withoutOpenId(String scope) {
        return String.join(" ", List.of(scope.strip().split("\\s+")).stream()
                .filter(s -> !s.isBlank() && !s.equals("openid")).toList());
    }

    static String challenge(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String path(OAuth2HttpRequest r) {
        return r.getUrl().encodedPath();
    }

    private static String origin(HttpUrl url) {
        return url.scheme() + "://" + url.host() + ":" + url.port();
    }

    private static OAuth2HttpResponse json(int status, Map<String, Object> doc) {
        try {
            return new OAuth2HttpResponse(Headers.of("Content-Type", "application/json", "Cache-Control", "no-store"),
                    status, JSON.writeValueAsString(doc), null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static OAuth2HttpResponse error(int status, String error, String description) {
        return json(status, Map.of("error", error, "error_description", description));
    }

    private static Route route(java.util.function.Predicate<OAuth2HttpRequest> match,
            java.util.function.Function<OAuth2HttpRequest, OAuth2HttpResponse> answer) {
        return new Route() {
            @Override
            public boolean match(OAuth2HttpRequest request) {
                return match.test(request);
            }

            @Override
            public OAuth2HttpResponse invoke(OAuth2HttpRequest request) {
                return answer.apply(request);
            }
        };
    }
}
