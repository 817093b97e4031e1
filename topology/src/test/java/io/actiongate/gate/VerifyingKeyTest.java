package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.gate.internal.TrustedKeys;
import io.actiongate.serde.AvroSetup;

/**
 * The gate's Ed25519 verifier (Bouncy Castle's lightweight implementation) against the JDK's provider that signs
 * (approver, CLI, client) and that verified before: signatures cross over in both directions, and everything the
 * JDK's verifier rejects this one rejects too.
 */
class VerifyingKeyTest {

    private static final byte[] SPKI_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");
    private static final byte[] PKCS8_PREFIX = HexFormat.of().parseHex("302e020100300506032b657004220420");
    /** The order of the prime-order subgroup, RFC 8032 section 5.1. */
    private static final BigInteger L = BigInteger.TWO.pow(252)
            .add(new BigInteger("27742317777372353535851937790883648493"));
    /**
     * The canonical encodings of the eight points of order 1, 2, 4 and 8 (the identity, (0, -1), (+-sqrt(-1), 0)
     * and the four of order 8), as in the blocklists of other Ed25519 libraries.
     */
    private static final List<String> SMALL_ORDER_POINTS = List.of(
            "0100000000000000000000000000000000000000000000000000000000000000",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "0000000000000000000000000000000000000000000000000000000000000000",
            "0000000000000000000000000000000000000000000000000000000000000080",
            "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
            "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
            "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
            "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85");

    private static KeyPair approver;
    private static VerifyingKey verifying;

    @BeforeAll
    static void generateKeys() throws GeneralSecurityException {
        AvroSetup.install(); // DecisionSigning.sign copies the decision with newBuilder(other)
        approver = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        verifying = VerifyingKey.of(approver.getPublic());
    }

    private static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Decision unsigned() {
        return Decision.newBuilder().setDecisionId("d-1").setTaskId("task-1").setToolCallId("call-1")
                .setType(DecisionType.APPROVE).setActionDigest("sha256:" + "ab".repeat(32))
                .setApproverSubject("alice@example.org").setApproverOrg("org-1").setAuthMethod("oidc")
                .setIssuedAt(Instant.ofEpochMilli(1796000523456L)).setExpiresAt(Instant.ofEpochMilli(1796001123456L))
                .setKeyId("key-1").setSignature(ByteBuffer.allocate(0)).build();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static boolean jdkVerifies(PublicKey key, byte[] message, byte[] signature) {
        try {
            Signature verifier = Signature.getInstance(DecisionSigning.ALGORITHM);
            verifier.initVerify(key);
            verifier.update(message);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    private static PublicKey jdkPublicKey(byte[] raw) throws GeneralSecurityException {
        byte[] der = Arrays.copyOf(SPKI_PREFIX, SPKI_PREFIX.length + raw.length);
        System.arraycopy(raw, 0, der, SPKI_PREFIX.length, raw.length);
        return KeyFactory.getInstance(DecisionSigning.ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
    }

    private static byte[] littleEndian(BigInteger value) {
        byte[] bigEndian = value.toByteArray();
        byte[] out = new byte[32];
        for (int i = 0; i < Math.min(32, bigEndian.length); i++) {
            out[i] = bigEndian[bigEndian.length - 1 - i];
        }
        return out;
    }

    private static BigInteger scalarS(byte[] signature) {
        byte[] bigEndian = new byte[33];
        for (int i = 0; i < 32; i++) {
            bigEndian[32 - i] = signature[32 + i];
        }
        return new BigInteger(bigEndian);
    }

    @Test
    void shouldVerifyADecisionTheJdkSigned() {
        Decision signed = DecisionSigning.sign(unsigned(), approver.getPrivate());

        assertThat(verifying.verify(DecisionSigning.signedPayload(signed), signed.getSignature())).isTrue();
        assertThat(signed.getSignature().remaining()).as("the buffer is not consumed").isEqualTo(64);
    }

    @Test
    void shouldSignExactlyAsTheJdkDoesAndVerifyUnderEither() throws GeneralSecurityException {
        byte[] seed = new byte[Ed25519.SECRET_KEY_SIZE];
        Ed25519.generatePrivateKey(new SecureRandom(), seed);
        byte[] raw = new byte[Ed25519.PUBLIC_KEY_SIZE];
        Ed25519.generatePublicKey(seed, 0, raw, 0);
        byte[] pkcs8 = Arrays.copyOf(PKCS8_PREFIX, PKCS8_PREFIX.length + seed.length);
        System.arraycopy(seed, 0, pkcs8, PKCS8_PREFIX.length, seed.length);
        PrivateKey jdkPrivate = KeyFactory.getInstance(DecisionSigning.ALGORITHM)
                .generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
        PublicKey jdkPublic = jdkPublicKey(raw);
        byte[] payload = DecisionSigning.signedPayload(unsigned());

        byte[] bySignerOfBouncyCastle = new byte[Ed25519.SIGNATURE_SIZE];
        Ed25519.sign(seed, 0, payload, 0, payload.length, bySignerOfBouncyCastle, 0);
        Decision byJdk = DecisionSigning.sign(unsigned(), jdkPrivate);

        // RFC 8032 signatures are deterministic: both implementations produce the same bytes
        assertThat(bytes(byJdk.getSignature())).isEqualTo(bySignerOfBouncyCastle);
        Decision byBouncyCastle = Decision.newBuilder(unsigned())
                .setSignature(ByteBuffer.wrap(bySignerOfBouncyCastle)).build();
        assertThat(DecisionSigning.verify(byBouncyCastle, jdkPublic)).as("signed by BC, verified by the JDK").isTrue();
        assertThat(VerifyingKey.of(jdkPublic).verify(payload, byJdk.getSignature()))
                .as("signed by the JDK, verified by BC").isTrue();
    }

    @Test
    void shouldVerifyTheWorkedExampleOfTheContractPage() throws IOException, GeneralSecurityException {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs/contract.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("docs/contract.md above the module").isNotNull();
        String doc = Files.readString(dir.resolve("docs/contract.md"), StandardCharsets.UTF_8);
        String publicKey = example(doc, "public-key").replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        byte[] signedJcs = example(doc, "decision-jcs").strip().getBytes(StandardCharsets.UTF_8);
        ByteBuffer signature = ByteBuffer.wrap(Base64.getDecoder().decode(example(doc, "signature").strip()));
        VerifyingKey key = VerifyingKey.of(KeyFactory.getInstance(DecisionSigning.ALGORITHM)
                .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(publicKey))));

        assertThat(key.verify(signedJcs, signature)).isTrue();
        byte[] altered = signedJcs.clone();
        altered[altered.length - 2] ^= 1;
        assertThat(key.verify(altered, signature)).isFalse();
    }

    private static String example(String doc, String name) {
        Matcher m = Pattern.compile("<!-- example: " + name + " -->\\n```[a-z]*\\n(.*?)\\n```", Pattern.DOTALL)
                .matcher(doc);
        assertThat(m.find()).as("example " + name + " in docs/contract.md").isTrue();
        return m.group(1);
    }

    @Test
    void shouldRejectAnotherKeyAnAlteredPayloadAndEveryFlippedBit() {
        Decision signed = DecisionSigning.sign(unsigned(), approver.getPrivate());
        byte[] payload = DecisionSigning.signedPayload(signed);
        byte[] sig = bytes(signed.getSignature());
        KeyPair other = generate();

        assertThat(VerifyingKey.of(other.getPublic()).verify(payload, signed.getSignature())).isFalse();
        byte[] altered = payload.clone();
        altered[10] ^= 0x20;
        assertThat(verifying.verify(altered, signed.getSignature())).isFalse();
        assertThat(verifying.verify(Arrays.copyOf(payload, payload.length - 1), signed.getSignature())).isFalse();
        for (int bit = 0; bit < 512; bit++) {
            byte[] flipped = sig.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(verifying.verify(payload, ByteBuffer.wrap(flipped))).as("bit %d flipped", bit).isFalse();
        }
    }

    @Test
    void shouldRejectMalformedSignaturesWithoutThrowing() {
        byte[] payload = DecisionSigning.signedPayload(unsigned());
        SplittableRandom random = new SplittableRandom(42);
        byte[] random64 = new byte[64];
        random.nextBytes(random64);
        byte[] allOnes = new byte[64];
        Arrays.fill(allOnes, (byte) 0xFF);
        byte[] valid = bytes(DecisionSigning.sign(unsigned(), approver.getPrivate()).getSignature());

        for (byte[] garbage : List.of(new byte[0], new byte[1], new byte[63], new byte[64], random64, allOnes,
                Arrays.copyOf(valid, 63), Arrays.copyOf(valid, 65), new byte[4096])) {
            assertThat(verifying.verify(payload, ByteBuffer.wrap(garbage))).as("%d bytes", garbage.length).isFalse();
        }
        assertThat(verifying.verify(payload, null)).isFalse();
        assertThat(verifying.verify(null, ByteBuffer.wrap(valid))).isFalse();
    }

    @Test
    void shouldRejectANonCanonicalSLikeTheJdk() {
        Decision signed = DecisionSigning.sign(unsigned(), approver.getPrivate());
        byte[] payload = DecisionSigning.signedPayload(signed);
        byte[] sig = bytes(signed.getSignature());
        // S + L is the same scalar mod L, so a verifier that reduces S would accept it: a second valid signature
        byte[] malleated = sig.clone();
        System.arraycopy(littleEndian(scalarS(sig).add(L)), 0, malleated, 32, 32);

        assertThat(verifying.verify(payload, ByteBuffer.wrap(sig))).isTrue();
        assertThat(jdkVerifies(approver.getPublic(), payload, malleated)).as("the JDK rejected it before").isFalse();
        assertThat(verifying.verify(payload, ByteBuffer.wrap(malleated))).isFalse();
    }

    @Test
    void shouldRejectSmallOrderPointsAsR() {
        byte[] payload = DecisionSigning.signedPayload(unsigned());
        byte[] valid = bytes(DecisionSigning.sign(unsigned(), approver.getPrivate()).getSignature());
        for (String point : SMALL_ORDER_POINTS) {
            byte[] r = HexFormat.of().parseHex(point);
            byte[] withValidS = valid.clone();
            System.arraycopy(r, 0, withValidS, 0, 32);
            byte[] withZeroS = Arrays.copyOf(r, 64);

            assertThat(verifying.verify(payload, ByteBuffer.wrap(withValidS))).as(point).isFalse();
            assertThat(verifying.verify(payload, ByteBuffer.wrap(withZeroS))).as(point).isFalse();
        }
    }

    @Test
    void shouldRefuseASmallOrderKeyUnderWhichATrivialSignatureWouldVerify() throws GeneralSecurityException {
        byte[] payload = DecisionSigning.signedPayload(unsigned());
        // R = identity, S = 0: [0]B = identity + [k]A holds for every message when A has small order
        byte[] trivial = Arrays.copyOf(HexFormat.of().parseHex(SMALL_ORDER_POINTS.get(0)), 64);
        int acceptedByTheJdk = 0;
        for (String point : SMALL_ORDER_POINTS) {
            byte[] raw = HexFormat.of().parseHex(point);
            PublicKey key;
            try {
                key = jdkPublicKey(raw);
            } catch (GeneralSecurityException e) {
                continue; // the JDK does not even decode it: nothing to refuse
            }
            if (jdkVerifies(key, payload, trivial)) {
                acceptedByTheJdk++;
            }
            assertThatThrownBy(() -> VerifyingKey.of(key)).as(point).isInstanceOf(IllegalArgumentException.class);
            String entry = "weak-1=" + Base64.getEncoder().encodeToString(key.getEncoded());
            assertThatThrownBy(() -> TrustedKeys.load(null, List.of(entry))).as(point)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weak-1")
                    .hasMessageNotContaining(Base64.getEncoder().encodeToString(key.getEncoded()));
        }
        // what the gate trusted before when such a key was configured: a signature that verifies for any message
        assertThat(acceptedByTheJdk).as("weak keys under which the JDK verifies the trivial signature").isPositive();
        PublicKey identity = jdkPublicKey(HexFormat.of().parseHex(SMALL_ORDER_POINTS.get(0)));
        assertThatThrownBy(() -> TrustedKeys.of(Map.of("weak-2", identity)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weak-2");
        // and the trivial signature is not something a trusted key could accept
        assertThat(verifying.verify(payload, ByteBuffer.wrap(trivial))).isFalse();
    }

    @Test
    void shouldRefuseAKeyThatIsNotEd25519() throws GeneralSecurityException {
        PublicKey rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair().getPublic();
        PublicKey x25519 = KeyPairGenerator.getInstance("X25519").generateKeyPair().getPublic();

        assertThatThrownBy(() -> VerifyingKey.of(rsa)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VerifyingKey.of(x25519)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> VerifyingKey.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Whatever the JDK's verifier rejected, this one rejects: random corruptions of valid (message, signature)
     * pairs under a valid key, each judged by both.
     */
    @Test
    void shouldRejectEverythingTheJdkRejectsOnRandomCorruptions() {
        SplittableRandom random = new SplittableRandom(7);
        int agreedValid = 0;
        for (int i = 0; i < 300; i++) {
            Decision d = Decision.newBuilder(unsigned()).setDecisionId("d-" + i).build();
            byte[] payload = DecisionSigning.signedPayload(d);
            byte[] sig = bytes(DecisionSigning.sign(d, approver.getPrivate()).getSignature());
            switch (i % 5) {
                case 0 -> { } // untouched: both accept
                case 1 -> sig[random.nextInt(64)] ^= (byte) (1 + random.nextInt(255));
                case 2 -> payload[random.nextInt(payload.length)] ^= (byte) (1 + random.nextInt(255));
                case 3 -> sig[31] ^= (byte) 0x80; // R's sign bit: the negated point
                default -> sig[63] |= (byte) (0x10 << random.nextInt(4)); // S far above L
            }
            boolean jdk = jdkVerifies(approver.getPublic(), payload, sig);
            boolean bc = verifying.verify(payload, ByteBuffer.wrap(sig));
            if (!jdk) {
                assertThat(bc).as("case %d: the JDK rejects it", i).isFalse();
            }
            if (jdk && bc) {
                agreedValid++;
            }
        }
        assertThat(agreedValid).as("the untouched signatures verify under both").isEqualTo(60);
    }
}
