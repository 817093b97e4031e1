package io.actiongate.mcp;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The gateway's OAuth Protected Resource Metadata (RFC 9728) and its {@code WWW-Authenticate} challenges (RFC 6750,
 * MCP authorization 2025-11-25). The metadata is served without a token at {@link #WELL_KNOWN} and at the
 * path-suffixed form RFC 9728 defines for a resource with a path ({@code /.well-known/oauth-protected-resource/mcp}
 * for {@code https://HOST/mcp}); the challenges' {@code resource_metadata} names the latter.
 */
final class ProtectedResource extends HttpServlet {

    private static final long serialVersionUID = 1L;
    static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI resource;
    private final URI issuer;
    private final List<String> scopes;
    private final byte[] document;

    ProtectedResource(OAuthSettings settings) {
        this.resource = settings.resource();
        this.issuer = settings.issuer();
        this.scopes = settings.scopes();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("resource", resource.toString());
        doc.put("authorization_servers", List.of(issuer.toString()));
        doc.put("bearer_methods_supported", List.of("header"));
        if (!scopes.isEmpty()) {
            doc.put("scopes_supported", scopes);
        }
        doc.put("resource_name", "actiongate MCP gateway");
        try {
            this.document = JSON.writeValueAsBytes(doc);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The path-suffixed metadata path of the resource (the plain one when the resource has no path). */
    String metadataPath() {
        String path = resource.getRawPath() == null || resource.getRawPath().equals("/") ? "" : resource.getRawPath();
        return WELL_KNOWN + path;
    }

    /** Where clients read the metadata: the resource's origin and {@link #metadataPath()}. */
    String metadataUrl() {
        return resource.getScheme() + "://" + resource.getRawAuthority() + metadataPath();
    }

    /** The challenge of a request without a token. */
    String challenge() {
        return "Bearer resource_metadata=\"" + metadataUrl() + "\""
                + (scopes.isEmpty() ? "" : ", scope=\"" + String.join(" ", scopes) + "\"");
    }

    /** The challenge of a refused token: RFC 6750's {@code error} and {@code error_description}. */
    String challenge(AccessTokens.Refusal refusal) {
        StringBuilder b = new StringBuilder("Bearer error=\"").append(refusal.error()).append('"');
        if ("insufficient_scope".equals(refusal.error()) && !scopes.isEmpty()) {
            b.append(", scope=\"").append(String.join(" ", scopes)).append('"');
        }
        return b.append(", error_description=\"").append(quotable(refusal.description()))
                .append("\", resource_metadata=\"").append(metadataUrl()).append('"').toString();
    }

    /** RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E in error_description: no quote, no backslash, ASCII only. */
    static String quotable(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            b.append(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? c : '\'');
        }
        return b.toString();
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setStatus(200);
        response.setContentType("application/json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setHeader("Cache-Control", "max-age=300");
        response.setHeader("Access-Control-Allow-Origin", "*");
        response.setContentLength(document.length);
        response.getOutputStream().write(document);
    }
}
