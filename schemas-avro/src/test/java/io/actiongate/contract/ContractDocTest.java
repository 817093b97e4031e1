package io.actiongate.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.digest.Jcs;
import io.actiongate.serde.AvroSetup;

/**
 * The contract page {@code docs/contract.md} against the code: its worked examples (input digest, action digest,
 * decision signature) are recomputed and verified, and its lists of reason codes, receipt statuses and record
 * fields must equal {@link ReasonCode}, {@link ReceiptStatus} and the Avro schemas.
 */
class ContractDocTest {

    private static final Pattern EXAMPLE = Pattern.compile(
            "<!-- example: ([a-z-]+) -->\\n(?:```[a-z]*\\n(.*?)\\n```|(\\|.*?)\\n\\n)", Pattern.DOTALL);

    private static String doc;
    private static final Map<String, String> EXAMPLES = new LinkedHashMap<>();

    @BeforeAll
    static void readThePage() throws IOException {
        AvroSetup.install(); // DecisionSigning.sign copies the decision with newBuilder(other)
        doc = RepositoryFiles.read("docs/contract.md");
        Matcher m = EXAMPLE.matcher(doc);
        while (m.find()) {
            EXAMPLES.put(m.group(1), m.group(2) != null ? m.group(2) : m.group(3));
        }
        assertThat(EXAMPLES).containsKeys("input-json", "input-jcs", "input-digest", "action-jcs", "action-digest",
                "private-key", "public-key", "decision-jcs", "signature", "reason-codes");
    }

    private static String example(String name) {
        return EXAMPLES.get(name).strip();
    }

    private static FrozenAction exampleAction() {
        return new FrozenAction("T-1", "call-7", 3, "acme", "user-42", "webhook", "send_email", "send_email",
                example("input-json"), "Tell ops that release 4.2 is live", List.of(), 5);
    }

    private static Decision exampleDecision(ByteBuffer signature) {
        return Decision.newBuilder().setDecisionId("d-0001").setTaskId("T-1").setToolCallId("call-7")
                .setType(DecisionType.APPROVE).setActionDigest(example("action-digest"))
                .setApproverSubject("alice@example.com").setApproverOrg("acme").setAuthMethod("webauthn")
                .setIssuedAt(Instant.ofEpochMilli(1767225600000L)).setExpiresAt(Instant.ofEpochMilli(1767229200000L))
                .setKeyId("alice-1").setSignature(signature).build();
    }

    private static byte[] pem(String text) {
        String body = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return Base64.getDecoder().decode(body);
    }

    @Test
    void shouldComputeTheInputDigestOfTheWorkedExample() {
        assertThat(Jcs.canonicalize(example("input-json"))).isEqualTo(example("input-jcs"));
        assertThat(Digests.inputDigest(example("input-json"))).isEqualTo(example("input-digest"))
                .isEqualTo(Digests.PREFIX + Digests.sha256Hex(example("input-jcs").getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldComputeTheActionDigestOfTheWorkedExample() {
        assertThat(Jcs.canonicalize(Digests.frozenActionJson(exampleAction()))).isEqualTo(example("action-jcs"));
        assertThat(Digests.actionDigest(exampleAction())).isEqualTo(example("action-digest"))
                .isEqualTo(Digests.PREFIX + Digests.sha256Hex(example("action-jcs").getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldVerifyTheSignatureOfTheWorkedExampleAndReproduceIt() throws GeneralSecurityException {
        KeyFactory keys = KeyFactory.getInstance(DecisionSigning.ALGORITHM);
        PublicKey publicKey = keys.generatePublic(new X509EncodedKeySpec(pem(example("public-key"))));
        PrivateKey privateKey = keys.generatePrivate(new PKCS8EncodedKeySpec(pem(example("private-key"))));
        byte[] signature = Base64.getDecoder().decode(example("signature"));

        Decision signed = exampleDecision(ByteBuffer.wrap(signature));
        assertThat(new String(DecisionSigning.signedPayload(signed), StandardCharsets.UTF_8))
                .isEqualTo(example("decision-jcs"));
        assertThat(DecisionSigning.verify(signed, publicKey)).isTrue();
        // Ed25519 is deterministic: the published private key signs exactly the published signature
        Decision resigned = DecisionSigning.sign(exampleDecision(ByteBuffer.wrap(new byte[0])), privateKey);
        assertThat(resigned.getSignature().array()).isEqualTo(signature);
        // and the signature covers every other field
        Decision later = Decision.newBuilder(signed).setExpiresAt(Instant.ofEpochMilli(1767232800000L)).build();
        assertThat(DecisionSigning.verify(later, publicKey)).isFalse();
    }

    @Test
    void shouldListExactlyTheReasonCodesOfTheCode() {
        List<String> listed = new ArrayList<>();
        for (String row : example("reason-codes").split("\n")) {
            Matcher code = Pattern.compile("^\\| `([A-Z_]+)` \\|").matcher(row);
            if (code.find()) {
                listed.add(code.group(1));
            }
        }
        assertThat(listed).containsExactlyElementsOf(Stream.of(ReasonCode.values()).map(Enum::name).toList());
    }

    @Test
    void shouldListExactlyTheReceiptStatuses() {
        int start = doc.indexOf("Receipt `status`:");
        String sentence = doc.substring(start, doc.indexOf('.', start));
        assertThat(backticked(sentence.substring("Receipt `status`:".length())))
                .containsExactlyElementsOf(Stream.of(ReceiptStatus.values()).map(Enum::name).toList());
    }

    @Test
    void shouldListEveryFieldOfEveryRecordInSchemaOrder() throws ReflectiveOperationException {
        int start = doc.indexOf("### Records and fields");
        String section = doc.substring(start, doc.indexOf("\n#", start + 1));
        Matcher line = Pattern.compile("(?m)^- `([A-Za-z]+)`: (.*)$").matcher(section);
        Map<String, List<String>> listed = new LinkedHashMap<>();
        while (line.find()) {
            listed.put(line.group(1), backticked(line.group(2)));
        }
        assertThat(listed).containsKeys("ActionProposal", "Decision", "PolicyRecord", "AttemptReservation",
                "AttemptOutcome", "UnknownOutcome", "Reconciliation", "Receipt", "IdentityConflict", "DeadLetter");
        for (Map.Entry<String, List<String>> record : listed.entrySet()) {
            Schema schema = (Schema) Class.forName("io.actiongate.avro." + record.getKey())
                    .getMethod("getClassSchema").invoke(null);
            assertThat(record.getValue()).as(record.getKey())
                    .containsExactlyElementsOf(schema.getFields().stream().map(Schema.Field::name).toList());
        }
    }

    private static List<String> backticked(String text) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("`([^`]+)`").matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
