package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dev identity provider as an MCP client meets it: RFC 8414 metadata with a registration endpoint, dynamic
 * registration, the authorization-code flow with PKCE and a resource indicator, and an access token for that
 * resource with the scope asked for, the demo org and profile. The approval service's own sign-in is unchanged.
 */
class DevIdentityProviderMcpTest {

    private static final String RESOURCE = "http://127.0.0.1:8090/mcp";
    private static final String REDIRECT = "http://127.0.0.1:33333/callback";
    private static final String VERIFIER = "dev-verifier-0123456789-0123456789-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    private static DevIdentityProvider provider;

    @BeforeAll
    static void start() {
        provider = DevIdentityProvider.start();
    }

    @AfterAll
    static void stop() {
        provider.close();
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String url, String contentType, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String register(String redirect) throws Exception {
        HttpResponse<String> registered = post(provider.issuer() + "/register", "application/json",
                "{\"redirect_uris\":[\"" + redirect + "\"],\"client_name\":\"test client\","
                        + "\"token_endpoint_auth_method\":\"none\"}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        return JSON.readTree(registered.body()).path("client_id").asText();
    }

    private static String authorizeUrl(String client, String redirect, boolean pkce) {
        return provider.issuer() + "/authorize?response_type=code&client_id=" + enc(client) + "&redirect_uri="
                + enc(redirect) + "&scope=" + enc(DevMcpAuthorization.MCP_SCOPE) + "&state=s1&resource=" + enc(RESOURCE)
                + (pkce ? "&code_challenge=" + DevMcpAuthorization.challenge(VERIFIER) + "&code_challenge_method=S256"
                : "");
    }

    @Test
    void shouldServeAuthorizationServerMetadataWithARegistrationEndpoint() throws Exception {
        String origin = provider.issuer().getScheme() + "://" + provider.issuer().getRawAuthority();
        for (String url : List.of(origin + "/.well-known/oauth-authorization-server/" + DevIdentityProvider.ISSUER_ID,
                provider.issuer() + "/.well-known/oauth-authorization-server")) {
            HttpResponse<String> answer = get(url);
            assertThat(answer.statusCode()).as(url).isEqualTo(200);
            JsonNode doc = JSON.readTree(answer.body());
            assertThat(doc.path("issuer").asText()).isEqualTo(provider.issuer().toString());
            assertThat(doc.path("registration_endpoint").asText()).isEqualTo(provider.issuer() + "/register");
            assertThat(doc.path("code_challenge_methods_supported").toString()).contains("S256");
        }
        // the approval service's discovery document is the provider's own
        assertThat(JSON.readTree(get(provider.discoveryUrl().toString()).body()).path("issuer").asText())
                .isEqualTo(provider.issuer().toString());
    }

    @Test
    void shouldRefuseRedirectsANativeOrLoopbackClientCouldNotOwn() throws Exception {
        HttpResponse<String> remote = post(provider.issuer() + "/register", "application/json",
                "{\"redirect_uris\":[\"http://evil.example/callback\"]}");
        assertThat(remote.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(remote.body()).path("error").asText()).isEqualTo("invalid_redirect_uri");
        String client = register(REDIRECT);
        HttpResponse<String> other = get(authorizeUrl(client, "http://127.0.0.1:44444/elsewhere", true));
        assertThat(other.statusCode()).as("never redirected to an unregistered URI").isEqualTo(400);
        assertThat(other.headers().firstValue("Location")).isEmpty();
        assertThat(get(authorizeUrl(client, REDIRECT, false)).statusCode()).as("PKCE is required").isEqualTo(400);
    }

    @Test
    void shouldIssueAnAccessTokenForTheResourceWithTheScopeOrgAndProfile() throws Exception {
        String client = register(REDIRECT);
        HttpResponse<String> first = get(authorizeUrl(client, REDIRECT, true));
        assertThat(first.statusCode()).isEqualTo(302);
        String login = first.headers().firstValue("Location").orElseThrow();
        assertThat(login).contains("scope=openid", DevMcpAuthorization.SEEN + "=1");
        assertThat(get(login).body()).contains("username");
        HttpResponse<String> signedIn = post(login, "application/x-www-form-urlencoded", "username=bob%40demo&claims=");
        assertThat(signedIn.statusCode()).isEqualTo(302);
        String callback = signedIn.headers().firstValue("Location").orElseThrow();
        assertThat(callback).startsWith(REDIRECT + "?code=");
        String code = callback.replaceAll(".*[?&]code=([^&]+).*", "$1");
        HttpResponse<String> token = post(provider.issuer() + "/token", "application/x-www-form-urlencoded",
                "grant_type=authorization_code&code=" + code + "&client_id=" + enc(client) + "&redirect_uri="
                        + enc(REDIRECT) + "&code_verifier=" + VERIFIER + "&resource=" + enc(RESOURCE));
        assertThat(token.statusCode()).as(token.body()).isEqualTo(200);
        JWTClaimsSet claims = SignedJWT.parse(JSON.readTree(token.body()).path("access_token").asText())
                .getJWTClaimsSet();
        assertThat(claims.getIssuer()).isEqualTo(provider.issuer().toString());
        assertThat(claims.getAudience()).containsExactly(RESOURCE);
        assertThat(claims.getSubject()).isEqualTo("bob@demo");
        assertThat(claims.getClaims()).containsEntry("scope", DevMcpAuthorization.MCP_SCOPE)
                .containsEntry(DevIdentityProvider.ORG_CLAIM, DemoPolicy.ORG)
                .containsEntry(DevMcpAuthorization.PROFILE_CLAIM, DemoPolicy.PROFILE);
        assertThat(claims.getExpirationTime()).isNotNull();
    }

    @Test
    void shouldLeaveTheApprovalServicesSignInAsItWas() throws Exception {
        String url = provider.issuer() + "/authorize?response_type=code&client_id=" + DevIdentityProvider.CLIENT_ID
                + "&redirect_uri=" + enc("http://localhost:1/callback") + "&scope=openid&state=s&nonce=n"
                + "&code_challenge=" + DevMcpAuthorization.challenge(VERIFIER) + "&code_challenge_method=S256";
        HttpResponse<String> form = get(url);
        assertThat(form.statusCode()).as("straight to the login form").isEqualTo(200);
        HttpResponse<String> signedIn = post(url, "application/x-www-form-urlencoded", "username=alice%40demo&claims=");
        String code = signedIn.headers().firstValue("Location").orElseThrow().replaceAll(".*[?&]code=([^&]+).*", "$1");
        HttpResponse<String> token = post(provider.issuer() + "/token", "application/x-www-form-urlencoded",
                "grant_type=authorization_code&code=" + code + "&client_id=" + DevIdentityProvider.CLIENT_ID
                        + "&redirect_uri=" + enc("http://localhost:1/callback") + "&code_verifier=" + VERIFIER);
        Map<String, Object> id = SignedJWT.parse(JSON.readTree(token.body()).path("id_token").asText())
                .getJWTClaimsSet().getClaims();
        assertThat(id).doesNotContainKey(DevMcpAuthorization.PROFILE_CLAIM).doesNotContainKey("scope");
        assertThat(SignedJWT.parse(JSON.readTree(token.body()).path("access_token").asText()).getJWTClaimsSet()
                .getAudience()).containsExactly(DevIdentityProvider.CLIENT_ID);
    }
}
