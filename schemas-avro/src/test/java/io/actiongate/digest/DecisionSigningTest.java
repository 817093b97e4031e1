package io.actiongate.digest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.fixtures.Records;

class DecisionSigningTest {

    private static KeyPair approverKey;
    private static KeyPair otherKey;

    @BeforeAll
    static void generateKeys() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance(DecisionSigning.ALGORITHM);
        approverKey = generator.generateKeyPair();
        otherKey = generator.generateKeyPair();
    }

    @Test
    void shouldVerifyWhatItSigned() {
        Decision signed = DecisionSigning.sign(Records.unsignedDecision(), approverKey.getPrivate());

        assertThat(signed.getSignature().remaining()).isEqualTo(64);
        assertThat(DecisionSigning.verify(signed, approverKey.getPublic())).isTrue();
    }

    @Test
    void shouldSignTheDocumentedPayload() {
        String expected = "{\"action_digest\":\"sha256:" + "ab".repeat(32) + "\","
                + "\"approver_org\":\"org-1\",\"approver_subject\":\"alice@example.org\",\"auth_method\":\"oidc\","
                + "\"decision_id\":\"dec-1\",\"expires_at\":1796001123456,\"issued_at\":1796000523456,"
                + "\"key_id\":\"key-2026\",\"task_id\":\"task-1\",\"tool_call_id\":\"call-1\",\"type\":\"APPROVE\"}";

        assertThat(new String(DecisionSigning.signedPayload(Records.decision()), StandardCharsets.UTF_8))
                .isEqualTo(expected);
    }

    @Test
    void shouldExcludeTheSignatureFromThePayload() {
        Decision a = Records.decision();
        Decision b = Decision.newBuilder(a).setSignature(ByteBuffer.wrap(new byte[] {1, 2, 3})).build();

        assertThat(DecisionSigning.signedPayload(a)).isEqualTo(DecisionSigning.signedPayload(b));
        assertThat(new String(DecisionSigning.signedPayload(a), StandardCharsets.UTF_8)).doesNotContain("signature");
    }

    @Test
    void shouldIncludeAbsentFieldsAsNull() {
        Decision decision = Records.decision();
        decision.put("auth_method", null);

        assertThat(new String(DecisionSigning.signedPayload(decision), StandardCharsets.UTF_8))
                .contains("\"auth_method\":null");
    }

    static Stream<Arguments> fieldChanges() {
        return Stream.of(
                change("decision_id", b -> b.setDecisionId("dec-2")),
                change("task_id", b -> b.setTaskId("task-2")),
                change("tool_call_id", b -> b.setToolCallId("call-2")),
                change("type", b -> b.setType(DecisionType.REJECT)),
                change("action_digest", b -> b.setActionDigest("sha256:" + "ac".repeat(32))),
                change("approver_subject", b -> b.setApproverSubject("mallory@example.org")),
                change("approver_org", b -> b.setApproverOrg("org-2")),
                change("auth_method", b -> b.setAuthMethod("password")),
                change("issued_at", b -> b.setIssuedAt(Records.T0.plusMillis(1))),
                change("expires_at", b -> b.setExpiresAt(Records.T0.plusSeconds(86_400))),
                change("key_id", b -> b.setKeyId("key-2025")));
    }

    private static Arguments change(String field, UnaryOperator<Decision.Builder> edit) {
        return Arguments.of(field, edit);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fieldChanges")
    void shouldRejectASignatureAfterAnyFieldChanged(String field, UnaryOperator<Decision.Builder> edit) {
        Decision signed = DecisionSigning.sign(Records.unsignedDecision(), approverKey.getPrivate());

        Decision tampered = edit.apply(Decision.newBuilder(signed)).build();

        assertThat(DecisionSigning.verify(tampered, approverKey.getPublic())).isFalse();
    }

    @Test
    void shouldCoverEverySignedFieldInTheTamperTest() {
        List<String> signedFields = Decision.getClassSchema().getFields().stream()
                .map(org.apache.avro.Schema.Field::name).filter(n -> !n.equals("signature")).toList();

        assertThat(fieldChanges().map(a -> (String) a.get()[0])).containsExactlyInAnyOrderElementsOf(signedFields);
    }

    @Test
    void shouldRejectASignatureUnderAnotherKey() {
        Decision signed = DecisionSigning.sign(Records.unsignedDecision(), approverKey.getPrivate());

        assertThat(DecisionSigning.verify(signed, otherKey.getPublic())).isFalse();
    }

    @Test
    void shouldReturnFalseRatherThanThrowForGarbageSignatures() throws GeneralSecurityException {
        SplittableRandom random = new SplittableRandom(42);
        byte[] random64 = new byte[64];
        random.nextBytes(random64);
        byte[] allOnes = new byte[64];
        java.util.Arrays.fill(allOnes, (byte) 0xFF);
        PublicKey rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair().getPublic();

        for (byte[] garbage : List.of(new byte[0], new byte[1], new byte[63], random64, allOnes, new byte[65],
                new byte[4096])) {
            Decision decision = Decision.newBuilder(Records.unsignedDecision())
                    .setSignature(ByteBuffer.wrap(garbage)).build();
            assertThatCode(() -> assertThat(DecisionSigning.verify(decision, approverKey.getPublic())).isFalse())
                    .doesNotThrowAnyException();
        }
        Decision noSignature = Records.unsignedDecision();
        noSignature.put("signature", null);
        assertThat(DecisionSigning.verify(noSignature, approverKey.getPublic())).isFalse();
        Decision signed = DecisionSigning.sign(Records.unsignedDecision(), approverKey.getPrivate());
        assertThat(DecisionSigning.verify(signed, rsa)).isFalse();
    }

    @Test
    void shouldNotConsumeTheSignatureBufferWhenVerifying() {
        Decision signed = DecisionSigning.sign(Records.unsignedDecision(), approverKey.getPrivate());

        assertThat(DecisionSigning.verify(signed, approverKey.getPublic())).isTrue();
        assertThat(DecisionSigning.verify(signed, approverKey.getPublic())).isTrue();
    }
}
