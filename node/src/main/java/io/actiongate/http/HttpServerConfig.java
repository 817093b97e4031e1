package io.actiongate.http;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.ConfigDefs;
import io.actiongate.runtime.HttpLimits;

/**
 * Where the gate's HTTP surface listens, who may call it (the keys of {@link #CONFIG_DEF}, {@code X_CONFIG} /
 * {@code X_DOC}; docs/configuration.md is generated from it), and the runtime's limits for slow and hostile clients
 * ({@link HttpLimits} under {@value #LIMITS_PREFIX}: {@code http.threads.max}, {@code http.header.timeout.ms}, ...;
 * {@link #LIMITS_DEF}).
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


    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(HTTP_PORT_CONFIG, Type.INT, DEFAULT_PORT, ConfigDef.Range.between(0, 65_535), Importance.LOW,
                    HTTP_PORT_DOC)
            .define(HTTP_BIND_ADDRESS_CONFIG, Type.STRING, DEFAULT_BIND_ADDRESS, Importance.MEDIUM,
                    HTTP_BIND_ADDRESS_DOC)
            .define(HTTP_AUTH_TOKENS_FILE_CONFIG, Type.STRING, "", Importance.HIGH, HTTP_AUTH_TOKENS_FILE_DOC)
            .define(HTTP_AUTH_METRICS_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, HTTP_AUTH_METRICS_DOC)
            .define(HTTP_AUTH_REQUIRED_CONFIG, Type.BOOLEAN, true, Importance.HIGH, HTTP_AUTH_REQUIRED_DOC)
            .define(HTTP_TLS_CERTIFICATE_FILE_CONFIG, Type.STRING, "", Importance.MEDIUM,
                    HTTP_TLS_CERTIFICATE_FILE_DOC)
            .define(HTTP_TLS_KEY_FILE_CONFIG, Type.STRING, "", Importance.MEDIUM, HTTP_TLS_KEY_FILE_DOC)
            .define(HTTP_TLS_CLIENT_CA_FILE_CONFIG, Type.STRING, "", Importance.MEDIUM, HTTP_TLS_CLIENT_CA_FILE_DOC);

    /** Every key this class reads but the limits ({@link #LIMIT_KEYS}). */
    public static final List<String> KEYS = List.copyOf(CONFIG_DEF.names());

    /** The runtime's limits under {@value #LIMITS_PREFIX}, with their defaults and bounds. */
    public static final ConfigDef LIMITS_DEF = HttpLimits.configDef(LIMITS_PREFIX);

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

    /** Reads the keys of {@link #CONFIG_DEF}; throws {@link IllegalArgumentException} naming a bad key. */
    public static HttpServerConfig from(Map<String, ?> config) {
        Map<String, Object> v = ConfigDefs.parse(CONFIG_DEF, config);
        HttpSecurity security = new HttpSecurity(
                (Boolean) v.get(HTTP_AUTH_REQUIRED_CONFIG),
                (Boolean) v.get(HTTP_AUTH_METRICS_CONFIG),
                path(v, HTTP_AUTH_TOKENS_FILE_CONFIG),
                path(v, HTTP_TLS_CERTIFICATE_FILE_CONFIG),
                path(v, HTTP_TLS_KEY_FILE_CONFIG),
                path(v, HTTP_TLS_CLIENT_CA_FILE_CONFIG));
        return new HttpServerConfig((String) v.get(HTTP_BIND_ADDRESS_CONFIG), (Integer) v.get(HTTP_PORT_CONFIG),
                security, HttpLimits.from(config, LIMITS_PREFIX));
    }

    /** Loopback on an ephemeral port with no authentication: for tests. */
    public static HttpServerConfig loopbackEphemeral() {
        return new HttpServerConfig("127.0.0.1", 0, HttpSecurity.OPEN);
    }

    public HttpServerConfig withSecurity(HttpSecurity newSecurity) {
        return new HttpServerConfig(bindAddress, port, newSecurity, limits);
    }

    private static Path path(Map<String, Object> parsed, String key) {
        String value = (String) parsed.get(key);
        return value.isEmpty() ? null : Path.of(value);
    }
}
