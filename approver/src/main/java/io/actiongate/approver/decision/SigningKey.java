package io.actiongate.approver.decision;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

import io.actiongate.digest.DecisionSigning;

/**
 * The service's own Ed25519 decision-signing key, read from a mounted secret in the format of
 * {@code actiongate keys generate}: PKCS#8 PEM ({@code -----BEGIN PRIVATE KEY-----}). Its public half goes into the
 * gate's trust list under {@code key_id}. The key never leaves this object; no model or tool credential reaches it.
 */
public final class SigningKey {

    private static final String BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String END = "-----END PRIVATE KEY-----";

    private final String keyId;
    private final PrivateKey key;

    private SigningKey(String keyId, PrivateKey key) {
        this.keyId = keyId;
        this.key = key;
    }

    public static SigningKey of(String keyId, PrivateKey key) {
        return new SigningKey(keyId, key);
    }

    /** Reads {@code file}; the message names the file, never its content. */
    public static SigningKey read(String keyId, Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        int from = text.indexOf(BEGIN);
        int to = text.indexOf(END);
        if (from < 0 || to < from) {
            throw new IOException(file + " has no PRIVATE KEY PEM block");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(text.substring(from + BEGIN.length(), to));
            PrivateKey k = KeyFactory.getInstance(DecisionSigning.ALGORITHM)
                    .generatePrivate(new PKCS8EncodedKeySpec(der));
            return new SigningKey(keyId, k);
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new IOException(file + " is not an Ed25519 private key (PKCS#8 PEM)", e);
        }
    }

    public String keyId() {
        return keyId;
    }

    PrivateKey privateKey() {
        return key;
    }
}
