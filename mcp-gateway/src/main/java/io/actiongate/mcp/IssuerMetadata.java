package io.actiongate.mcp;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads an authorization server's metadata for its {@code jwks_uri}, at start: OpenID Connect discovery
 * ({@code ISSUER/.well-known/openid-configuration}), then RFC 8414 ({@code /.well-known/oauth-authorization-server}
 * inserted before the issuer's path, then appended to it). A document counts only when its {@code issuer} is the
 * configured one.
 */
final class IssuerMetadata {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private IssuerMetadata() {
    }

    static URI jwksUri(URI issuer) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER).build();
        List<String> tried = new ArrayList<>();
        for (URI url : candidates(issuer)) {
            tried.add(url.toString());
            try {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(url).timeout(TIMEOUT)
                        .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() != 200) {
                    continue;
                }
                JsonNode doc = JSON.readTree(answer.body());
                if (!issuer.toString().equals(doc.path("issuer").asText()) || !doc.path("jwks_uri").isTextual()) {
                    continue;
                }
                return OAuthSettings.url("jwks_uri of " + url, doc.path("jwks_uri").asText());
            } catch (IOException e) {
                // try the next form
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException(GatewayConfig.OAUTH_ISSUER_CONFIG + ": no metadata naming issuer " + issuer
                + " and a jwks_uri at " + String.join(", ", tried) + " (set " + GatewayConfig.OAUTH_JWKS_URL_CONFIG
                + " to skip discovery)");
    }

    static List<URI> candidates(URI issuer) {
        String path = issuer.getRawPath() == null ? "" : issuer.getRawPath();
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
        return List.of(URI.create(origin + path + "/.well-known/openid-configuration"),
                URI.create(origin + "/.well-known/oauth-authorization-server" + path),
                URI.create(origin + path + "/.well-known/oauth-authorization-server"));
    }
}
