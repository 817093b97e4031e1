package io.actiongate.http;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.actiongate.runtime.HttpLimits;

/**
 * Where the gate's HTTP surface listens, who may call it, and the runtime's limits for slow and hostile clients
 * ({@link HttpLimits} under {@value #LIMITS_PREFIX}: {@code http.threads.max}, {@code http.header.timeout.ms}, ...).
 * Keys follow the configuration convention ({@code X_CONFIG} / {@code X_DOC}) so the run configuration can declare
 * them beside its own.
 */
public record HttpServerConfig(String bindAddress, int port, HttpSecurity security, HttpLimits limits) {

    /** The prefix of the runtime's HTTP limits for the node API. */
    public static final String LIMITS_PREFIX = "http.";

    public static final String HTTP_PORT_CONFIG = "http.port";
    public static final String HTTP_PORT_DOC = "TCP port of the HTTP surface (action state, /metrics, /health). "
            + "Must equal the port in the Streams application.server setting so other instances can route to it.";
    public static final int DEFAULT_PORT = 8080;

    public static final String HTTP_BIND_ADDRESS_CONFIG = "http.bind.address";
    public static final String HTTP_BIND_ADDRESS_DOC = "Address the HTTP surface binds to; 0.0.0.0 in containers, "
            + "127.0.0.1 for a local dev setup.";
    public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";

    public static final String HTTP_AUTH_TOKENS_FILE_CONFIG = "http.auth.tokens.file";
    public static final String HTTP_AUTH_TOKENS_FILE_DOC = "File (a mounted secret) of the bearer tokens /v1/... "
            + "accepts, one per line (# comments and blank lines ignored); several for rotation. Re-read when it "
            + "changes.";
    public static final String HTTP_AUTH_METRICS_CONFIG = "http.auth.metrics";
    public static final String HTTP_AUTH_METRICS_DOC = "true: /metrics requires the same credentials as /v1/...";
    public static final String HTTP_AUTH_REQUIRED_CONFIG = "http.auth.required";
    public static final String HTTP_AUTH_REQUIRED_DOC = "false: /v1/... is open to anyone who reaches the port "
            + "(only for a trusted network). true (default): a bearer token or a trusted client certificate is "
            + "required; with neither configured every /v1 request is refused.";
    public static final String HTTP_TLS_CERTIFICATE_FILE_CONFIG = "http.tls.certificate.file";
    public static final String HTTP_TLS_CERTIFICATE_FILE_DOC = "PEM certificate chain of the HTTPS server; set "
            + "together with http.tls.key.file to serve HTTPS instead of HTTP.";
    public static final String HTTP_TLS_KEY_FILE_CONFIG = "http.tls.key.file";
    public static final String HTTP_TLS_KEY_FILE_DOC = "PEM PKCS#8 private key (BEGIN PRIVATE KEY, RSA or EC) of "
            + "the HTTPS server.";
    public static final String HTTP_TLS_CLIENT_CA_FILE_CONFIG = "http.tls.client.ca.file";
    public static final String HTTP_TLS_CLIENT_CA_FILE_DOC = "PEM CA certificates whose client certificates "
            + "/v1/... accepts (mutual TLS); needs http.tls.certificate.file.";

    /** Every key this class reads but the limits ({@link #LIMIT_KEYS}). */
    public static final List<String> KEYS = List.of(HTTP_PORT_CONFIG, HTTP_BIND_ADDRESS_CONFIG,
            HTTP_AUTH_TOKENS_FILE_CONFIG, HTTP_AUTH_METRICS_CONFIG, HTTP_AUTH_REQUIRED_CONFIG,
            HTTP_TLS_CERTIFICATE_FILE_CONFIG, HTTP_TLS_KEY_FILE_CONFIG, HTTP_TLS_CLIENT_CA_FILE_CONFIG);

    /** The runtime's limits for the node API ({@code http.threads.max}, ...; docs/operating.md). */
    public static final List<String> LIMIT_KEYS = HttpLimits.keys(LIMITS_PREFIX);

    /** Credentials required ({@link HttpSecurity#REQUIRED}): {@code /v1} refuses everyone until some are set. */
    public HttpServerConfig(String bindAddress, int port) {
        this(bindAddress, port, HttpSecurity.REQUIRED);
    }

    /** The default limits ({@link HttpLimits#DEFAULTS}). */
    public HttpServerConfig(String bindAddress, int port, HttpSecurity security) {
        this(bindAddress, port, security, HttpLimits.DEFAULTS);
    }

    public HttpServerConfig {
        java.util.Objects.requireNonNull(security, "security");
        java.util.Objects.requireNonNull(limits, "limits");
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException(HTTP_BIND_ADDRESS_CONFIG + " must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(HTTP_PORT_CONFIG + " must be 0..65535, was " + port);
        }
    }

    /** Reads the {@code http.*} keys from {@code config}, with their defaults. */
    public static HttpServerConfig from(Map<String, ?> config) {
        Object port = config.get(HTTP_PORT_CONFIG);
        Object bind = config.get(HTTP_BIND_ADDRESS_CONFIG);
        int parsedPort;
        try {
            parsedPort = port == null ? DEFAULT_PORT : Integer.parseInt(port.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(HTTP_PORT_CONFIG + " must be a number, was '" + port + "'", e);
        }
        HttpSecurity security = new HttpSecurity(
                bool(config, HTTP_AUTH_REQUIRED_CONFIG, true),
                bool(config, HTTP_AUTH_METRICS_CONFIG, false),
                path(config, HTTP_AUTH_TOKENS_FILE_CONFIG),
                path(config, HTTP_TLS_CERTIFICATE_FILE_CONFIG),
                path(config, HTTP_TLS_KEY_FILE_CONFIG),
                path(config, HTTP_TLS_CLIENT_CA_FILE_CONFIG));
        return new HttpServerConfig(bind == null ? DEFAULT_BIND_ADDRESS : bind.toString().trim(), parsedPort,
                security, HttpLimits.from(config, LIMITS_PREFIX));
    }

    /** Loopback on an ephemeral port with no authentication: for tests. */
    public static HttpServerConfig loopbackEphemeral() {
        return new HttpServerConfig("127.0.0.1", 0, HttpSecurity.OPEN);
    }

    public HttpServerConfig withSecurity(HttpSecurity newSecurity) {
        return new HttpServerConfig(bindAddress, port, newSecurity, limits);
    }

    private static boolean bool(Map<String, ?> config, String key, boolean otherwise) {
        Object value = config.get(key);
        if (value == null || value.toString().isBlank()) {
            return otherwise;
        }
        String text = value.toString().trim();
        if ("true".equalsIgnoreCase(text)) {
            return true;
        }
        if ("false".equalsIgnoreCase(text)) {
            return false;
        }
        throw new IllegalArgumentException(key + " must be true or false, was '" + text + "'");
    }

    private static Path path(Map<String, ?> config, String key) {
        Object value = config.get(key);
        return value == null || value.toString().isBlank() ? null : Path.of(value.toString().trim());
    }
}
