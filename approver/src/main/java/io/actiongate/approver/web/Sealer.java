package io.actiongate.approver.web;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts and authenticates small values (AES-256-GCM, random 96-bit nonce, a purpose string as associated data so
 * that one kind of sealed value never opens as another): the pending sign-in and the session in the browser's
 * cookies, and every TOTP secret in the shared state. A sealed value is {@code keyId.base64url(nonce || ciphertext)}.
 *
 * <p>Keys come from a mounted secret file ({@code approver.state.key.file}), one {@code id=base64url(32 bytes)} per
 * line: the first line seals, every line opens. Rotation: put a new key on the first line and keep the old one
 * below it; what is read under the old key is sealed under the new one the next time it is written; remove the old
 * line once nothing needs it (sessions last {@code approver.session.max}; a TOTP secret is re-sealed at its next
 * use). Every replica must have the same file.
 */
public final class Sealer {

    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final String currentId;
    private final Map<String, SecretKey> keys;

    public Sealer(Map<String, byte[]> keysFirstCurrent) {
        if (keysFirstCurrent.isEmpty()) {
            throw new IllegalArgumentException("a sealer needs at least one key");
        }
        Map<String, SecretKey> k = new LinkedHashMap<>();
        keysFirstCurrent.forEach((id, key) -> {
            if (!id.matches("[A-Za-z0-9_-]{1,32}")) {
                throw new IllegalArgumentException("a key id is 1 to 32 of [A-Za-z0-9_-], not '" + id + "'");
            }
            if (key.length != 32) {
                throw new IllegalArgumentException("key " + id + " is " + key.length + " bytes, not 32 (AES-256)");
            }
            k.put(id, new SecretKeySpec(key.clone(), "AES"));
        });
        this.keys = Map.copyOf(k);
        this.currentId = keysFirstCurrent.keySet().iterator().next();
    }

    /** A sealer with a key of its own (one replica only: no other instance can open what it seals). */
    public static Sealer random() {
        return new Sealer(Map.of("local", Tokens.randomBytes(32)));
    }

    /** Reads the key file: {@code id=base64url-key} lines, the first one current; {@code #} starts a comment. */
    public static Sealer fromFile(Path file) throws IOException {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        int n = 0;
        for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            byte[] key = eq <= 0 ? null : Tokens.unb64(line.substring(eq + 1));
            if (key == null) {
                throw new IllegalArgumentException(file + " line " + n + " is not id=base64url-key");
            }
            if (keys.put(line.substring(0, eq).strip(), key) != null) {
                throw new IllegalArgumentException(file + " line " + n + " repeats a key id");
            }
        }
        return new Sealer(keys);
    }

    /** The id of the key that seals now. */
    public String currentKeyId() {
        return currentId;
    }

    public String seal(String purpose, String plaintext) {
        return seal(purpose, plaintext.getBytes(StandardCharsets.UTF_8));
    }

    public String seal(String purpose, byte[] plaintext) {
        byte[] nonce = Tokens.randomBytes(NONCE_BYTES);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, keys.get(currentId), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(purpose.getBytes(StandardCharsets.UTF_8));
            byte[] ct = c.doFinal(plaintext);
            return currentId + "." + Tokens.b64(ByteBuffer.allocate(nonce.length + ct.length).put(nonce).put(ct)
                    .array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is required by every Java platform", e);
        }
    }

    /** The plaintext, or empty when it was not sealed by a known key for this purpose, or was altered. */
    public Optional<String> open(String purpose, String sealed) {
        return openBytes(purpose, sealed).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    public Optional<byte[]> openBytes(String purpose, String sealed) {
        if (sealed == null) {
            return Optional.empty();
        }
        int dot = sealed.indexOf('.');
        SecretKey key = dot <= 0 ? null : keys.get(sealed.substring(0, dot));
        byte[] raw = dot <= 0 ? null : Tokens.unb64(sealed.substring(dot + 1));
        if (key == null || raw == null || raw.length < NONCE_BYTES + TAG_BITS / 8) {
            return Optional.empty();
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
            c.updateAAD(purpose.getBytes(StandardCharsets.UTF_8));
            return Optional.of(c.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES));
        } catch (AEADBadTagException e) {
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is required by every Java platform", e);
        }
    }

    /** Whether {@code sealed} was sealed under an older key than the current one. */
    public boolean sealedUnderOldKey(String sealed) {
        return sealed != null && !sealed.startsWith(currentId + ".");
    }
}
