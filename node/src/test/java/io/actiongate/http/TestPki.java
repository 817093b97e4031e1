package io.actiongate.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away PKI made with the JDK's own {@code keytool}: a CA, a server certificate for 127.0.0.1 signed by it,
 * a client certificate signed by it, and a client certificate signed by another CA the server does not trust.
 * Server files are PEM as Kubernetes mounts them (tls.crt, tls.key as PKCS#8, ca.crt).
 */
final class TestPki {

    private static final String PASSWORD = "changeit";

    final Path caCert;
    final Path serverCert;
    final Path serverKey;
    private final Path dir;

    TestPki(Path dir) throws Exception {
        this.dir = dir;
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=test-ca",
                "-ext", "bc:c", "-validity", "2", "-keystore", store("ca"));
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=other-ca", "-ext", "bc:c", "-validity", "2", "-keystore", store("other-ca"));
        caCert = dir.resolve("ca.crt");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", store("ca"), "-file", caCert.toString());
        issue("server", "ca", "SAN=ip:127.0.0.1,dns:localhost", "EKU=serverAuth,clientAuth");
        issue("client", "ca", null, "EKU=clientAuth");
        issue("stranger", "other-ca", null, "EKU=clientAuth");

        serverCert = dir.resolve("tls.crt");
        Files.writeString(serverCert, Files.readString(dir.resolve("server.crt")) + Files.readString(caCert));
        serverKey = dir.resolve("tls.key");
        Files.writeString(serverKey, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(privateKey("server").getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
    }

    /** A client context presenting {@code who}'s certificate ("client", "stranger", or null for none). */
    SSLContext client(String who) throws Exception {
        KeyManagerFactory kmf = null;
        if (who != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            List<Certificate> chain = new ArrayList<>(read(dir.resolve(who + ".crt")));
            keys.setKeyEntry(who, privateKey(who), PASSWORD.toCharArray(), chain.toArray(Certificate[]::new));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, PASSWORD.toCharArray());
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", read(caCert).get(0));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    private void issue(String name, String ca, String san, String eku) throws Exception {
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", "2", "-keystore", store(name));
        Path csr = dir.resolve(name + ".csr");
        keytool("-certreq", "-alias", name, "-keystore", store(name), "-file", csr.toString());
        List<String> args = new ArrayList<>(List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", store(ca),
                "-infile", csr.toString(), "-outfile", dir.resolve(name + ".crt").toString(), "-validity", "2",
                "-ext", eku));
        if (san != null) {
            args.addAll(List.of("-ext", san));
        }
        keytool(args.toArray(String[]::new));
    }

    private PrivateKey privateKey(String name) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(Path.of(store(name)))) {
            store.load(in, PASSWORD.toCharArray());
        }
        return (PrivateKey) store.getKey(name, PASSWORD.toCharArray());
    }

    private static List<Certificate> read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
    }

    private String store(String name) {
        return dir.resolve(name + ".p12").toString();
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD, "-noprompt"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
        }
    }
}
