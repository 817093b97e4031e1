package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** Bearer tokens and mutual TLS on the HTTP surface: /v1 needs one of them, /health never, /metrics on request. */
class HttpAuthTest {

    private static final String ACTION = "/v1/actions/T-1/c-1";
    private static final String OLD = "old-token-0123456789abcdef";
    private static final String NEW = "new-token-fedcba9876543210";

    @TempDir
    Path dir;

    private final FakeStateQuery query = new FakeStateQuery();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private GateHttpServer server;

    @BeforeEach
    void state() {
        query.local.put("T-1/c-1", new ObjectMapper().createObjectNode().put("status", "WAITING_APPROVAL"));
        logs.start();
        ((Logger) LoggerFactory.getLogger(NodeAuth.class)).addAppender(logs);
    }

    @AfterEach
    void stop() {
        ((Logger) LoggerFactory.getLogger(NodeAuth.class)).detachAppender(logs);
        if (server != null) {
            server.close();
        }
    }

    private GateHttpServer start(Map<String, String> config) {
        Map<String, String> all = new java.util.HashMap<>(config);
        all.put(HttpServerConfig.HTTP_PORT_CONFIG, "0");
        all.put(HttpServerConfig.HTTP_BIND_ADDRESS_CONFIG, "127.0.0.1");
        server = new GateHttpServer(HttpServerConfig.from(all), query, new PrometheusRegistry(), () -> true).start();
        return server;
    }

    private Path tokens(String... lines) throws IOException {
        Path file = dir.resolve("tokens");
        Files.write(file, List.of(lines));
        return file;
    }

    private HttpResponse<String> get(String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return Http.send(request);
    }

    @Test
    void shouldRequireABearerTokenForTheActionApiButNotForHealth() throws Exception {
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens("# rotation: old and new", OLD, "",
                NEW).toString()));

        HttpResponse<String> anonymous = get(ACTION, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v ->
                assertThat(v).startsWith("Bearer"));
        assertThat(anonymous.body()).doesNotContain("WAITING_APPROVAL");
        assertThat(get(ACTION, "wrong-" + OLD).statusCode()).isEqualTo(401);
        assertThat(get(ACTION, OLD.substring(0, OLD.length() - 1)).statusCode()).isEqualTo(401);
        HttpResponse<String> basic = Http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + ACTION)).header("Authorization", "Basic " + OLD));
        assertThat(basic.statusCode()).isEqualTo(401);

        assertThat(get(ACTION, OLD).statusCode()).isEqualTo(200);
        assertThat(get(ACTION, NEW).body()).contains("WAITING_APPROVAL");
        assertThat(get("/health/live", null).statusCode()).isEqualTo(200);
        assertThat(get("/health/ready", null).statusCode()).isEqualTo(200);
        assertThat(get("/metrics", null).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAnswerATokenOfAnOrgOnlyAboutItsOrgsActions() throws Exception {
        // the action of org acme and one of org globex; a token of each org, and an operator's token without one
        query.local.put("T-1/c-1", new ObjectMapper().createObjectNode().put("status", "WAITING_APPROVAL")
                .put("org_id", "acme"));
        query.local.put("T-9/c-1", new ObjectMapper().createObjectNode().put("status", "WAITING_APPROVAL")
                .put("org_id", "globex"));
        String acme = "acme-token-0123456789abcdef";
        String globex = "globex-token-0123456789abcdef";
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens(acme + " acme", globex + "  globex",
                OLD).toString()));

        assertThat(get(ACTION, acme).statusCode()).isEqualTo(200);
        HttpResponse<String> foreign = get("/v1/actions/T-9/c-1", acme);
        HttpResponse<String> unknown = get("/v1/actions/T-9/c-2", acme);
        assertThat(foreign.statusCode()).as("another org's action is not shown").isEqualTo(404);
        assertThat(foreign.body()).doesNotContain("WAITING_APPROVAL").isEqualTo(unknown.body());
        assertThat(get(ACTION, globex).statusCode()).isEqualTo(404);
        assertThat(get("/v1/actions/T-9/c-1", globex).statusCode()).isEqualTo(200);
        // an operator's token without an org sees every org
        assertThat(get(ACTION, OLD).statusCode()).isEqualTo(200);
        assertThat(get("/v1/actions/T-9/c-1", OLD).statusCode()).isEqualTo(200);
        // the org is not a part of the token: "TOKEN ORG" presented whole is no token
        assertThat(get(ACTION, acme + " acme").statusCode()).isEqualTo(401);
    }

    @Test
    void shouldNotShowAnotherOrgsActionThroughTheLongPoll() throws Exception {
        // the attacker's variant of the request above: the same foreign action, asked as a long poll
        query.local.put("T-9/c-1", new ObjectMapper().createObjectNode().put("status", "SUCCEEDED")
                .put("org_id", "globex"));
        String acme = "acme-token-0123456789abcdef";
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens(acme + " acme", OLD).toString()));

        for (String query : List.of("?wait=200ms", "?until=decided", "?wait=200ms&until=terminal")) {
            HttpResponse<String> foreign = get("/v1/actions/T-9/c-1" + query, acme);
            assertThat(foreign.statusCode()).as(query).isEqualTo(404);
            assertThat(foreign.body()).as(query).doesNotContain("SUCCEEDED").doesNotContain("globex");
            assertThat(get("/v1/actions/T-9/c-1" + query, OLD).statusCode()).as(query).isEqualTo(200);
        }
    }

    @Test
    void shouldLogRefusalsWithoutTheToken() throws Exception {
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens(NEW).toString()));
        String offered = "guessed-secret-value-42";
        assertThat(get(ACTION, offered).statusCode()).isEqualTo(401);
        assertThat(get(ACTION, null).statusCode()).isEqualTo(401);

        assertThat(logs.list).hasSize(2);
        assertThat(logs.list).allSatisfy(e -> assertThat(e.getFormattedMessage()).contains(ACTION)
                .doesNotContain(offered).doesNotContain(NEW));
        assertThat(logs.list.get(0).getFormattedMessage()).contains("invalid bearer token");
        assertThat(logs.list.get(1).getFormattedMessage()).contains("no credential presented");
    }

    @Test
    void shouldLogARefusedPathWithoutTheCredentialItHolds() throws Exception {
        // a path is input; a token where an id belongs stays out of the refusal's log line
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens(NEW).toString()));
        for (String token : io.actiongate.testing.TokenShapes.all().values()) {
            String id = java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
            assertThat(get("/v1/actions/T-1/" + id, null).statusCode()).isEqualTo(401);
        }

        assertThat(logs.list).hasSize(io.actiongate.testing.TokenShapes.all().size())
                .extracting(ILoggingEvent::getFormattedMessage).noneMatch(io.actiongate.testing.TokenShapes::leaks)
                .allSatisfy(m -> assertThat(m).contains("no credential presented"));
    }

    @Test
    void shouldAcceptARotatedTokenAndDropTheRetiredOneWithoutARestart() throws Exception {
        Path file = tokens(OLD);
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, file.toString()));
        assertThat(get(ACTION, OLD).statusCode()).isEqualTo(200);
        assertThat(get(ACTION, NEW).statusCode()).isEqualTo(401);

        // step 1 of a rotation: both accepted while clients move
        Files.write(file, List.of(OLD, NEW));
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(1)));
        assertThat(get(ACTION, NEW).statusCode()).isEqualTo(200);
        assertThat(get(ACTION, OLD).statusCode()).isEqualTo(200);

        // step 2: the old one retired
        Files.write(file, List.of(NEW));
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(2)));
        assertThat(get(ACTION, OLD).statusCode()).isEqualTo(401);
        assertThat(get(ACTION, NEW).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseEveryoneWhenNoCredentialIsConfiguredAndOpenOnlyWhenToldTo() {
        start(Map.of());
        assertThat(get(ACTION, OLD).statusCode()).isEqualTo(401);
        assertThat(get(ACTION, null).statusCode()).isEqualTo(401);
        assertThat(get("/health/ready", null).statusCode()).isEqualTo(200);
        server.close();

        start(Map.of(HttpServerConfig.HTTP_AUTH_REQUIRED_CONFIG, "false"));
        assertThat(get(ACTION, null).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldProtectMetricsWhenConfigured() throws Exception {
        start(Map.of(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens(NEW).toString(),
                HttpServerConfig.HTTP_AUTH_METRICS_CONFIG, "true"));
        assertThat(get("/metrics", null).statusCode()).isEqualTo(401);
        assertThat(get("/metrics", NEW).statusCode()).isEqualTo(200);
        assertThat(get("/health/live", null).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldAcceptATrustedClientCertificateAndRefuseOthers() throws Exception {
        TestPki pki = new TestPki(dir);
        start(Map.of(HttpServerConfig.HTTP_TLS_CERTIFICATE_FILE_CONFIG, pki.serverCert.toString(),
                HttpServerConfig.HTTP_TLS_KEY_FILE_CONFIG, pki.serverKey.toString(),
                HttpServerConfig.HTTP_TLS_CLIENT_CA_FILE_CONFIG, pki.caCert.toString(),
                HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens(NEW).toString()));

        HttpResponse<String> trusted = https(pki.client("client"), ACTION, null);
        assertThat(trusted.statusCode()).isEqualTo(200);
        assertThat(trusted.body()).contains("WAITING_APPROVAL");

        // no certificate: the handshake succeeds (health must answer probes) but /v1 refuses
        assertThat(https(pki.client(null), ACTION, null).statusCode()).isEqualTo(401);
        assertThat(https(pki.client(null), "/health/ready", null).statusCode()).isEqualTo(200);
        // ... unless a token comes instead
        assertThat(https(pki.client(null), ACTION, NEW).statusCode()).isEqualTo(200);

        // a certificate from a CA the server does not trust never reaches the action
        int stranger;
        try {
            stranger = https(pki.client("stranger"), ACTION, null).statusCode();
        } catch (RuntimeException e) {
            stranger = -1; // the handshake was refused
        }
        assertThat(stranger).isIn(-1, 401);

        // plain HTTP is not served on the TLS port
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        int plainStatus;
        try {
            plainStatus = plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + ACTION))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (IOException e) {
            plainStatus = -1;
        }
        assertThat(plainStatus).isNotEqualTo(200);
    }

    private HttpResponse<String> https(SSLContext context, String path, String token) {
        HttpClient client = HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("request failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
