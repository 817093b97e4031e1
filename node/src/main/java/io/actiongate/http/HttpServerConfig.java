package io.actiongate.http;

import java.util.Map;

/**
 * Where the gate's HTTP surface listens. Keys follow the configuration convention ({@code X_CONFIG} /
 * {@code X_DOC}) so the run configuration can declare them beside its own.
 */
public record HttpServerConfig(String bindAddress, int port) {

    public static final String HTTP_PORT_CONFIG = "http.port";
    public static final String HTTP_PORT_DOC = "TCP port of the HTTP surface (action state, /metrics, /health). "
            + "Must equal the port in the Streams application.server setting so other instances can route to it.";
    public static final int DEFAULT_PORT = 8080;

    public static final String HTTP_BIND_ADDRESS_CONFIG = "http.bind.address";
    public static final String HTTP_BIND_ADDRESS_DOC = "Address the HTTP surface binds to; 0.0.0.0 in containers, "
            + "127.0.0.1 for a local dev setup.";
    public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";

    public HttpServerConfig {
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException(HTTP_BIND_ADDRESS_CONFIG + " must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(HTTP_PORT_CONFIG + " must be 0..65535, was " + port);
        }
    }

    /** Reads {@code http.port} and {@code http.bind.address} from {@code config}, with their defaults. */
    public static HttpServerConfig from(Map<String, ?> config) {
        Object port = config.get(HTTP_PORT_CONFIG);
        Object bind = config.get(HTTP_BIND_ADDRESS_CONFIG);
        int parsedPort;
        try {
            parsedPort = port == null ? DEFAULT_PORT : Integer.parseInt(port.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(HTTP_PORT_CONFIG + " must be a number, was '" + port + "'", e);
        }
        return new HttpServerConfig(bind == null ? DEFAULT_BIND_ADDRESS : bind.toString().trim(), parsedPort);
    }

    /** Loopback on an ephemeral port: for tests. */
    public static HttpServerConfig loopbackEphemeral() {
        return new HttpServerConfig("127.0.0.1", 0);
    }
}
