package io.actiongate.gate.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.actiongate.contract.ContractLimits;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.gate.VerifyingKey;
import io.actiongate.key.ActionKey;

/**
 * The Ed25519 public keys the gate trusts to sign decisions, by {@code key_id}. They come from configuration
 * (a mounted secret directory or inline values), never from a topic.
 *
 * <p>A key is the X.509 {@code SubjectPublicKeyInfo} DER, either PEM-armoured ({@code -----BEGIN PUBLIC
 * KEY-----}) or plain base64. In a directory, each file {@code <key_id>.pem} or {@code <key_id>.pub} holds one key;
 * hidden files (Kubernetes secret mounts keep {@code ..data} links) are skipped. Each key is decoded once, when it
 * loads, into the {@link VerifyingKey} that checks signatures; a key that is not a canonical point of the
 * prime-order subgroup (e.g. a small-order point, under which a trivial signature would verify) is refused then.
 */
public final class TrustedKeys {

    private final Map<String, VerifyingKey> keys;

    private TrustedKeys(Map<String, VerifyingKey> keys) {
        this.keys = Collections.unmodifiableMap(keys);
    }

    /** Throws {@link IllegalArgumentException} naming the key id (never the key) when a key is not usable. */
    public static TrustedKeys of(Map<String, PublicKey> keys) {
        Map<String, VerifyingKey> verifying = new TreeMap<>();
        keys.forEach((keyId, key) -> verifying.put(keyId, verifying(keyId, key)));
        return new TrustedKeys(verifying);
    }

    /**
     * Loads the keys of {@code dir} (may be null or blank) and the inline {@code key_id=base64} entries.
     * Throws {@link IllegalArgumentException} naming the key id (never the key) when one does not parse.
     */
    public static TrustedKeys load(String dir, List<String> inline) {
        Map<String, VerifyingKey> keys = new TreeMap<>();
        if (dir != null && !dir.isBlank()) {
            Path root = Path.of(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(root)) {
                for (Path file : files) {
                    String name = file.getFileName().toString();
                    boolean keyFile = name.endsWith(".pub") || name.endsWith(".pem");
                    if (name.startsWith(".") || !keyFile || !Files.isRegularFile(file)) {
                        continue; // e.g. a private key or a README beside the public keys
                    }
                    int dot = name.lastIndexOf('.');
                    String keyId = dot > 0 ? name.substring(0, dot) : name;
                    keys.put(requireKeyId(keyId),
                            verifying(keyId, parse(keyId, Files.readString(file, StandardCharsets.US_ASCII))));
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read trusted keys directory " + root + ": "
                        + e.getClass().getSimpleName());
            }
        }
        for (String entry : inline == null ? List.<String>of() : inline) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("a trusted key is key_id=base64 (X.509 DER)");
            }
            String keyId = entry.substring(0, eq).trim();
            keys.put(requireKeyId(keyId), verifying(keyId, parse(keyId, entry.substring(eq + 1))));
        }
        return new TrustedKeys(keys);
    }

    private static String requireKeyId(String keyId) {
        if (!ActionKey.isValidId(keyId)) {
            throw new IllegalArgumentException("a key id must match " + ContractLimits.ID_PATTERN.pattern());
        }
        return keyId;
    }

    private static VerifyingKey verifying(String keyId, PublicKey key) {
        try {
            return VerifyingKey.of(key);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("trusted key " + keyId + " is " + e.getMessage(), e);
        }
    }

    /** Parses PEM or base64 X.509 DER into an Ed25519 public key. */
    public static PublicKey parse(String keyId, String text) {
        String base64 = text.replaceAll("-----(BEGIN|END) PUBLIC KEY-----", "").replaceAll("\\s", "");
        try {
            byte[] der = Base64.getDecoder().decode(base64);
            return KeyFactory.getInstance(DecisionSigning.ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalArgumentException("trusted key " + keyId + " is not an Ed25519 X.509 public key");
        }
    }

    /** The PEM text of {@code key}, as the directory format expects it. */
    public static String toPem(PublicKey key) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(key.getEncoded()) + "\n-----END PUBLIC KEY-----\n";
    }

    public Optional<PublicKey> find(String keyId) {
        return verifier(keyId).map(VerifyingKey::publicKey);
    }

    /** The decoded key that verifies signatures under {@code keyId}, when it is trusted. */
    public Optional<VerifyingKey> verifier(String keyId) {
        return keyId == null ? Optional.empty() : Optional.ofNullable(keys.get(keyId));
    }

    public int size() {
        return keys.size();
    }
}
