package io.actiongate.gate;

import java.nio.ByteBuffer;
import java.security.PublicKey;
import java.util.Arrays;

import org.bouncycastle.math.ec.rfc8032.Ed25519;

import io.actiongate.digest.DecisionSigning;

/**
 * A trusted Ed25519 public key, decoded once, that verifies RFC 8032 signatures with Bouncy Castle's lightweight
 * implementation ({@code org.bouncycastle.math.ec.rfc8032.Ed25519}, called directly: Bouncy Castle is never
 * installed as a JCA provider). On JDK 17 it verifies about eight times as many signatures per second as the
 * JDK's own {@code Signature("Ed25519")} (load-tests README, "CPU per action in the gate"); the signing side
 * ({@link DecisionSigning#sign}) stays on the JDK: both produce the same deterministic RFC 8032 signatures.
 *
 * <p>It is at least as strict as the JDK's verifier it replaces, and stricter on keys:
 * <ul>
 *   <li>the key must be a canonical encoding of a point of the prime-order subgroup: a small-order key (with which
 *       the JDK verifier accepts the signature {@code R = identity, S = 0} for any message) or a key with a
 *       small-order component is refused when the gate loads its configuration, not at the first decision;</li>
 *   <li>a signature is exactly 64 bytes; {@code S} must be below the group order (no malleable {@code S + L})
 *       and {@code R} a canonical point encoding.</li>
 * </ul>
 * Immutable and safe to share between stream threads.
 */
public final class VerifyingKey {

    /** The DER prefix of an Ed25519 X.509 {@code SubjectPublicKeyInfo} (RFC 8410): the raw key follows it. */
    private static final byte[] SPKI_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21,
        0x00};

    static {
        Ed25519.precompute(); // the base-point tables, once per JVM rather than on the first decision
    }

    private final PublicKey publicKey;
    private final Ed25519.PublicPoint point;

    private VerifyingKey(PublicKey publicKey, Ed25519.PublicPoint point) {
        this.publicKey = publicKey;
        this.point = point;
    }

    /**
     * Decodes {@code key} (an Ed25519 key whose X.509 encoding is RFC 8410's). Throws {@link IllegalArgumentException}
     * when it is not one, or when its point is not a canonical point of the prime-order subgroup.
     */
    public static VerifyingKey of(PublicKey key) {
        byte[] raw = raw(key);
        Ed25519.PublicPoint point = Ed25519.validatePublicKeyFullExport(raw, 0);
        if (point == null) {
            throw new IllegalArgumentException("not a valid Ed25519 public key (a non-canonical or small-order point)");
        }
        return new VerifyingKey(key, point);
    }

    private static byte[] raw(PublicKey key) {
        byte[] der = key == null ? null : key.getEncoded();
        if (der == null || !"X.509".equals(key.getFormat()) || der.length != SPKI_PREFIX.length + Ed25519.PUBLIC_KEY_SIZE
                || !Arrays.equals(der, 0, SPKI_PREFIX.length, SPKI_PREFIX, 0, SPKI_PREFIX.length)) {
            throw new IllegalArgumentException("not an Ed25519 X.509 public key");
        }
        return Arrays.copyOfRange(der, SPKI_PREFIX.length, der.length);
    }

    public PublicKey publicKey() {
        return publicKey;
    }

    /**
     * Whether {@code signature} (read from its position, not consumed) is a valid Ed25519 signature of
     * {@code message} under this key. Never throws for a bad signature.
     */
    public boolean verify(byte[] message, ByteBuffer signature) {
        if (message == null || signature == null || signature.remaining() != Ed25519.SIGNATURE_SIZE) {
            return false;
        }
        byte[] sig = new byte[Ed25519.SIGNATURE_SIZE];
        signature.duplicate().get(sig);
        return Ed25519.verify(sig, 0, point, message, 0, message.length);
    }
}
