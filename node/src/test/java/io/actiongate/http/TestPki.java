package io.actiongate.http;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away PKI: a CA, a server certificate for 127.0.0.1 signed by it, a client certificate signed by it, and a
 * client certificate signed by another CA the server does not trust. Server files are PEM as Kubernetes mounts them
 * (tls.crt, tls.key as PKCS#8, ca.crt). The certificates come from test-support's in-process CA ({@link
 * io.actiongate.testing.TestPki}): made with {@code keytool}, twelve JVM starts made this the slowest unit test.
 */
final class TestPki {

    final Path caCert;
    final Path serverCert;
    final Path serverKey;
    private final io.actiongate.testing.TestPki ca;
    private final io.actiongate.testing.TestPki otherCa;

    TestPki(Path dir) throws Exception {
        ca = io.actiongate.testing.TestPki.create(dir.resolve("ca"));
        otherCa = io.actiongate.testing.TestPki.create(dir.resolve("other-ca"));
        KeyStore trust = load(ca.truststore(), ca.password());
        caCert = Files.writeString(dir.resolve("ca.crt"), pem("CERTIFICATE", trust.getCertificate("ca").getEncoded()));

        KeyStore server = load(ca.keystore("server"), ca.password());
        StringBuilder chain = new StringBuilder();
        for (Certificate cert : server.getCertificateChain("server")) {
            chain.append(pem("CERTIFICATE", cert.getEncoded()));
        }
        serverCert = Files.writeString(dir.resolve("tls.crt"), chain);
        PrivateKey key = (PrivateKey) server.getKey("server", ca.password().toCharArray());
        serverKey = Files.writeString(dir.resolve("tls.key"), pem("PRIVATE KEY", key.getEncoded()));
    }

    /** A client context presenting {@code who}'s certificate ("client", "stranger", or null for none). */
    SSLContext client(String who) throws Exception {
        KeyManagerFactory kmf = null;
        if (who != null) {
            io.actiongate.testing.TestPki issuer = "stranger".equals(who) ? otherCa : ca;
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(issuer.keystore(who), issuer.password()), issuer.password().toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(load(ca.truststore(), ca.password()));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    private static KeyStore load(Path file, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
