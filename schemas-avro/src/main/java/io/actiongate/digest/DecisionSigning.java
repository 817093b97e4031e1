package io.actiongate.digest;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Instant;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.avro.Schema;

import io.actiongate.avro.Decision;

/**
 * The Ed25519 signature of a {@link Decision} (docs/contract.md section 3): over the UTF-8 JCS of the JSON object
 * holding every other field of the decision, bytes fields excluded. Enums are their symbol, timestamps their
 * epoch milliseconds, absent optional fields {@code null}.
 */
public final class DecisionSigning {

    public static final String ALGORITHM = "Ed25519";

    private DecisionSigning() {
    }

    /** The exact bytes that are signed. */
    public static byte[] signedPayload(Decision decision) {
        ObjectNode node = Jcs.mapper().createObjectNode();
        for (Schema.Field field : decision.getSchema().getFields()) {
            if (isBytes(field.schema())) {
                continue;
            }
            Object value = decision.get(field.pos());
            if (value == null) {
                node.putNull(field.name());
            } else if (value instanceof Instant instant) {
                node.put(field.name(), instant.toEpochMilli());
            } else if (value instanceof Long l) {
                node.put(field.name(), l);
            } else if (value instanceof Integer i) {
                node.put(field.name(), i);
            } else if (value instanceof Boolean b) {
                node.put(field.name(), b);
            } else {
                node.put(field.name(), value.toString());
            }
        }
        return Jcs.canonicalize(node).getBytes(StandardCharsets.UTF_8);
    }

    private static boolean isBytes(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            return schema.getTypes().stream().anyMatch(DecisionSigning::isBytes);
        }
        return schema.getType() == Schema.Type.BYTES || schema.getType() == Schema.Type.FIXED;
    }

    /** Signs {@code unsigned} (its signature field is ignored) and returns a copy carrying the signature. */
    public static Decision sign(Decision unsigned, PrivateKey key) {
        try {
            Signature signer = Signature.getInstance(ALGORITHM);
            signer.initSign(key);
            signer.update(signedPayload(unsigned));
            return Decision.newBuilder(unsigned)
                    .setSignature(java.nio.ByteBuffer.wrap(signer.sign()))
                    .build();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot sign with this key: " + e.getMessage(), e);
        }
    }

    /** Whether {@code decision}'s signature verifies under {@code key}. Never throws for a bad signature. */
    public static boolean verify(Decision decision, PublicKey key) {
        if (decision.getSignature() == null) {
            return false;
        }
        try {
            java.nio.ByteBuffer sig = decision.getSignature().duplicate();
            byte[] bytes = new byte[sig.remaining()];
            sig.get(bytes);
            Signature verifier = Signature.getInstance(ALGORITHM);
            verifier.initVerify(key);
            verifier.update(signedPayload(decision));
            return verifier.verify(bytes);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }
}
