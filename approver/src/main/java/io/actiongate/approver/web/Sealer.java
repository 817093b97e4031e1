package io.actiongate.approver.web;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Optional;

import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts and authenticates small values the service hands to the browser and must get back unchanged (AES-256-GCM,
 * random 96-bit nonce, a purpose string as associated data so one kind of sealed value never opens as another). This
 * is what keeps a pending sign-in out of server memory: the login cookie carries it, sealed, and only this service
 * can open it. Every replica sharing the key opens what any of them sealed.
 */
public final class Sealer {

    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final SecretKey key;

    public Sealer(byte[] key) {
        if (key.length != 32) {
            throw new IllegalArgumentException("a sealing key is 32 bytes (AES-256), not " + key.length);
        }
        this.key = new SecretKeySpec(key.clone(), "AES");
    }

    /** A sealer with a key of its own (one replica only: no other instance can open what it seals). */
    public static Sealer random() {
        return new Sealer(Tokens.randomBytes(32));
    }

    public String seal(String purpose, String plaintext) {
        byte[] nonce = Tokens.randomBytes(NONCE_BYTES);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(purpose.getBytes(StandardCharsets.UTF_8));
            byte[] ct = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return Tokens.b64(ByteBuffer.allocate(nonce.length + ct.length).put(nonce).put(ct).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is required by every Java platform", e);
        }
    }

    /** The plaintext, or empty when the value was not sealed by this key for this purpose (or was altered). */
    public Optional<String> open(String purpose, String sealed) {
        byte[] raw = Tokens.unb64(sealed);
        if (raw == null || raw.length < NONCE_BYTES + TAG_BITS / 8) {
            return Optional.empty();
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
            c.updateAAD(purpose.getBytes(StandardCharsets.UTF_8));
            byte[] pt = c.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES);
            return Optional.of(new String(pt, StandardCharsets.UTF_8));
        } catch (javax.crypto.AEADBadTagException e) {
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is required by every Java platform", e);
        }
    }
}
