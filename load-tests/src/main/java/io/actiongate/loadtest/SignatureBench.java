package io.actiongate.loadtest;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.gate.VerifyingKey;
import io.actiongate.serde.AvroSetup;

/**
 * Decision-signature verification candidates side by side, one thread, in one JVM: the micro run behind the gate's
 * choice of verifier (load-tests README, "CPU per action in the gate"). Each candidate verifies the same signed
 * decisions, computing the signed payload (JCS) each time as the gate does; rounds interleave the candidates so that
 * load from other processes hits each alike, and the median round is printed. Every verification must succeed
 * (the run fails otherwise, so a fast but wrong candidate cannot win).
 *
 * <pre>java -cp load-tests/target/actiongate-load-tests-*-bench.jar io.actiongate.loadtest.SignatureBench [decisions] [rounds]</pre>
 */
public final class SignatureBench {

    private SignatureBench() {
    }

    public static void main(String[] args) throws GeneralSecurityException {
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        AvroSetup.install();
        KeyPair keys = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM).generateKeyPair();
        List<Decision> signed = new ArrayList<>(decisions);
        Instant t0 = Instant.parse("2026-12-01T00:00:00Z");
        for (int i = 0; i < decisions; i++) {
            signed.add(DecisionSigning.sign(Decision.newBuilder().setDecisionId("d-" + i).setTaskId("task-bench")
                    .setToolCallId("call-" + i).setType(DecisionType.APPROVE)
                    .setActionDigest("sha256:" + String.format(Locale.ROOT, "%064x", i)).setApproverSubject("approver")
                    .setApproverOrg("acme").setAuthMethod("bench").setIssuedAt(t0).setExpiresAt(t0.plusSeconds(3600))
                    .setKeyId("bench-key").setSignature(ByteBuffer.allocate(0)).build(), keys.getPrivate()));
        }
        Map<String, Predicate<Decision>> candidates = candidates(keys.getPublic());
        Map<String, long[]> nanos = new LinkedHashMap<>();
        candidates.keySet().forEach(name -> nanos.put(name, new long[rounds]));
        System.out.printf(Locale.ROOT, "Ed25519 decision verification, one thread: %d decisions x %d rounds "
                + "(+1 warm-up), %s %s, load avg %.2f%n", decisions, rounds, System.getProperty("java.vm.name"),
                System.getProperty("java.version"),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        boolean ok = true;
        for (int round = -1; round < rounds; round++) {
            for (Map.Entry<String, Predicate<Decision>> candidate : candidates.entrySet()) {
                long start = System.nanoTime();
                int verified = 0;
                for (Decision d : signed) {
                    if (candidate.getValue().test(d)) {
                        verified++;
                    }
                }
                long elapsed = System.nanoTime() - start;
                ok &= verified == decisions;
                if (round >= 0) {
                    nanos.get(candidate.getKey())[round] = elapsed;
                }
            }
        }
        System.out.printf(Locale.ROOT, "%-58s %12s %10s %8s%n", "candidate", "decisions/s", "us/each", "x (jdk)");
        double baseline = median(nanos.values().iterator().next());
        for (Map.Entry<String, long[]> e : nanos.entrySet()) {
            double median = median(e.getValue());
            System.out.printf(Locale.ROOT, "%-58s %12.0f %10.1f %8.2f%n", e.getKey(), decisions * 1e9 / median,
                    median / 1e3 / decisions, baseline / median);
        }
        if (!ok) {
            System.out.println("FAILED: a candidate did not verify every decision");
            System.exit(1);
        }
    }

    private static Map<String, Predicate<Decision>> candidates(PublicKey key) {
        Map<String, Predicate<Decision>> c = new LinkedHashMap<>();
        c.put("jdk: Signature.getInstance per call (the gate before)", d -> DecisionSigning.verify(d, key));
        Signature reused = jdk();
        c.put("jdk: one Signature reused by the thread", d -> {
            try {
                reused.initVerify(key);
                reused.update(DecisionSigning.signedPayload(d));
                return reused.verify(bytes(d.getSignature()));
            } catch (GeneralSecurityException e) {
                return false;
            }
        });
        byte[] der = key.getEncoded();
        Ed25519PublicKeyParameters parameters = new Ed25519PublicKeyParameters(Arrays.copyOfRange(der, der.length - 32,
                der.length));
        c.put("bc: Ed25519Signer per call", d -> {
            Ed25519Signer signer = new Ed25519Signer();
            signer.init(false, parameters);
            byte[] payload = DecisionSigning.signedPayload(d);
            signer.update(payload, 0, payload.length);
            return signer.verifySignature(bytes(d.getSignature()));
        });
        VerifyingKey verifying = VerifyingKey.of(key);
        c.put("bc: rfc8032 verify, point decoded once (the gate now)",
                d -> verifying.verify(DecisionSigning.signedPayload(d), d.getSignature()));
        return c;
    }

    private static Signature jdk() {
        try {
            return Signature.getInstance(DecisionSigning.ALGORITHM);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
