package io.actiongate.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import io.actiongate.broker.BrokerSecurity;

/**
 * A throw-away certificate authority for tests, made with Bouncy Castle's certificate builder (the keys and the
 * stores are the JDK's): a CA, and certificates it signs for the broker ({@code SAN IP:127.0.0.1, DNS:localhost})
 * and for clients ({@code CN=name}, the principal {@code User:name} under
 * {@link BrokerSecurity#PRINCIPAL_MAPPING_RULES}). Every store is PKCS12 with one password.
 */
public final class TestPki {

    /** The address the embedded broker listens on (the sandbox's package-private Ports.LOOPBACK): the SAN of every leaf. */
    private static final String BROKER_ADDRESS = "127.0.0.1";

    private static final Duration VALIDITY = Duration.ofDays(2);
    private static final String SIGNATURE = "SHA256withECDSA";

    private final Path dir;
    private final String password;
    private final KeyPair caKeys;
    private final X500Name caName = new X500Name("CN=actiongate-test-ca");
    private final X509Certificate caCert;
    private final AtomicLong serial = new AtomicLong(System.currentTimeMillis());

    private TestPki(Path dir, String password) throws GeneralSecurityException, OperatorCreationException {
        this.dir = dir;
        this.password = password;
        this.caKeys = newKeyPair();
        X509v3CertificateBuilder b = builder(caName, caName, caKeys);
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.caCert = sign(b, caKeys.getPrivate());
    }

    /** A new CA whose stores go into {@code dir}. */
    public static TestPki create(Path dir) {
        try {
            Files.createDirectories(dir);
            byte[] random = new byte[12];
            new SecureRandom().nextBytes(random);
            return new TestPki(dir, java.util.HexFormat.of().formatHex(random));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot create the test CA: " + e.getMessage(), e);
        }
    }

    /** The password of every store this CA writes. */
    public String password() {
        return password;
    }

    /** A truststore holding the CA certificate. */
    public Path truststore() {
        Path file = dir.resolve("truststore.p12");
        if (!Files.exists(file)) {
            try {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setCertificateEntry("ca", caCert);
                write(store, file);
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot write the truststore: " + e.getMessage(), e);
            }
        }
        return file;
    }

    /** A keystore with a key and a {@code CN=cn} certificate signed by this CA, valid for 127.0.0.1. */
    public Path keystore(String cn) {
        Path file = dir.resolve(cn + ".p12");
        try {
            KeyPair keys = newKeyPair();
            X509v3CertificateBuilder b = builder(caName, new X500Name("CN=" + cn), keys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, BROKER_ADDRESS),
                new GeneralName(GeneralName.dNSName, "localhost")}));
            X509Certificate cert = sign(b, caKeys.getPrivate());
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(cn, keys.getPrivate(), password.toCharArray(), new X509Certificate[] {cert, caCert});
            write(store, file);
            return file;
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot write the keystore of " + cn + ": " + e.getMessage(), e);
        }
    }

    /** The broker's security with a fresh {@code CN=broker} certificate; {@code superUsers} as well. */
    public BrokerSecurity brokerSecurity(String... superUsers) {
        return new BrokerSecurity(keystore("broker"), truststore(), password, "broker", java.util.List.of(superUsers));
    }

    private X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(serial.incrementAndGet()),
                Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(VALIDITY)), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder(SIGNATURE)
                .build(key)));
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private void write(KeyStore store, Path file) throws GeneralSecurityException, IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
    }
}
