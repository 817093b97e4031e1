package io.actiongate.runtime;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS material from PEM files as Kubernetes and cert-manager mount them ({@code tls.crt}, {@code tls.key},
 * {@code ca.crt}): the server's key and chain, and the CAs that vouch for client certificates. The same context
 * serves as the client side when a gate forwards a query to another gate over HTTPS (its own certificate as the
 * client certificate, the client CAs and its own chain as trust anchors).
 */
public final class PemTls {

    private static final char[] NO_PASSWORD = new char[0];

    private PemTls() {
    }

    /**
     * The TLS context of a server (and of its forwards to its peers).
     *
     * @param certificateFile PEM certificate chain
     * @param keyFile         PEM PKCS#8 private key
     * @param clientCaFile    PEM CAs whose client certificates are trusted; null: none
     */
    public static SSLContext context(Path certificateFile, Path keyFile, Path clientCaFile) {
        try {
            List<? extends Certificate> chain = certificates(certificateFile);
            if (chain.isEmpty()) {
                throw new IllegalArgumentException("the TLS certificate file " + certificateFile
                        + " holds no certificate");
            }
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("server", privateKey(keyFile), NO_PASSWORD,
                    chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, NO_PASSWORD);

            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            int n = 0;
            if (clientCaFile != null) {
                for (Certificate ca : certificates(clientCaFile)) {
                    trusted.setCertificateEntry("client-ca-" + n++, ca);
                }
                if (n == 0) {
                    throw new IllegalArgumentException("the client CA file " + clientCaFile
                            + " holds no certificate");
                }
            }
            for (Certificate own : chain) {
                trusted.setCertificateEntry("own-" + n++, own);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trusted);

            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the HTTP TLS files: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the HTTP TLS files: " + e.getMessage(), e);
        }
    }

    private static List<? extends Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        byte[] pem = Files.readAllBytes(file);
        return List.copyOf(CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem)));
    }

    /** An unencrypted PKCS#8 key ({@code -----BEGIN PRIVATE KEY-----}): RSA, EC or EdDSA. */
    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the TLS key file " + file
                    + " is not a PEM PKCS#8 key (BEGIN PRIVATE KEY); convert it with "
                    + "`openssl pkcs8 -topk8 -nocrypt` or set cert-manager's privateKey.encoding: PKCS8");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "EdDSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException("the TLS key file " + file
                + " is not an RSA, EC or EdDSA key");
    }
}
