package io.actiongate.http;

import java.nio.file.Path;

/**
 * Who may call the HTTP surface (configuration only; {@link GateHttpServer} builds the TLS context and token set
 * from it when it starts). {@code /health/*} is always open; {@code /v1/...} needs a bearer token from
 * {@code tokensFile} or a client certificate trusted by {@code clientCaFile}; {@code /metrics} needs the same when
 * {@code metrics} is true.
 *
 * @param required        false: {@code /v1/...} is open (only for a trusted network; never the default)
 * @param metrics         {@code /metrics} requires credentials too
 * @param tokensFile      accepted bearer tokens, one per line; null: none
 * @param certificateFile PEM certificate chain of the HTTPS server; null: plain HTTP
 * @param keyFile         PEM PKCS#8 private key of the HTTPS server
 * @param clientCaFile    PEM CAs whose client certificates are accepted (mutual TLS); null: none
 */
public record HttpSecurity(boolean required, boolean metrics, Path tokensFile, Path certificateFile, Path keyFile,
                           Path clientCaFile) {

    /** The default: credentials required, none configured yet (every {@code /v1} request is refused). */
    public static final HttpSecurity REQUIRED = new HttpSecurity(true, false, null, null, null, null);

    /** No authentication at all: for tests and a trusted loopback only. */
    public static final HttpSecurity OPEN = new HttpSecurity(false, false, null, null, null, null);

    public HttpSecurity {
        if ((certificateFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException(HttpServerConfig.HTTP_TLS_CERTIFICATE_FILE_CONFIG + " and "
                    + HttpServerConfig.HTTP_TLS_KEY_FILE_CONFIG + " must be set together");
        }
        if (clientCaFile != null && certificateFile == null) {
            throw new IllegalArgumentException(HttpServerConfig.HTTP_TLS_CLIENT_CA_FILE_CONFIG + " needs "
                    + HttpServerConfig.HTTP_TLS_CERTIFICATE_FILE_CONFIG + " (client certificates need HTTPS)");
        }
    }

    /** Bearer tokens from {@code file} (one per line), on top of this. */
    public HttpSecurity withTokensFile(Path file) {
        return new HttpSecurity(true, metrics, file, certificateFile, keyFile, clientCaFile);
    }

    public boolean tls() {
        return certificateFile != null;
    }

    public boolean clientCertificates() {
        return clientCaFile != null;
    }

    /** Whether any credential can be presented at all. */
    public boolean anyCredential() {
        return tokensFile != null || clientCaFile != null;
    }
}
