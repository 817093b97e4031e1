package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static io.actiongate.gate.GateDriver.withInput;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.gate.internal.DeadLetters;
import io.actiongate.topics.Topics;

/** Undecodable records become dead letters without stalling; no output ever carries an input or a secret. */
class DeadLetterAndSecretsTest {

    static final String AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
    static final String PASSWORD = "hunter2-Correct-Horse-Battery";

    @TempDir
    Path stateDir;
    GateDriver gate;

    @BeforeEach
    void start() {
        gate = GateDriver.start(stateDir).demoPolicy();
    }

    @AfterEach
    void stop() {
        gate.close();
    }

    @Test
    void shouldDeadLetterGarbageBetweenGoodRecordsAndKeepProcessing() {
        gate.propose(proposal("c-1"));
        byte[] garbage = ("garbage with " + AWS_KEY).getBytes(StandardCharsets.UTF_8);
        gate.rawProposals.pipeInput("T-1/c-2".getBytes(StandardCharsets.UTF_8), garbage);
        gate.propose(proposal("c-3"));
        assertThat(gate.receipts()).extracting(r -> r.getToolCallId()).containsExactly("c-1", "c-3");
        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getSourceTopic()).isEqualTo("actiongate.proposals");
        assertThat(letter.getOffset()).isEqualTo(1L);
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(letter.getReason()).startsWith("BAD_MARKER");
        assertThat(letter.getPayloadSha256()).isEqualTo(Digests.sha256Hex(garbage));
        assertThat(letter.getPayloadSize()).isEqualTo(garbage.length);
    }

    @Test
    void shouldDeadLetterTruncatedAndUnknownSchemaRecords() {
        byte[] good = Topics.PROPOSALS.valueSerde().serializer().serialize("t", proposal("c-1").build());
        byte[] truncated = java.util.Arrays.copyOf(good, 12);
        byte[] otherSchema = good.clone();
        otherSchema[5] ^= 0x55; // fingerprint byte
        gate.rawProposals.pipeInput("T-1/c-1".getBytes(StandardCharsets.UTF_8), truncated);
        gate.rawProposals.pipeInput("T-1/c-1".getBytes(StandardCharsets.UTF_8), otherSchema);
        gate.rawDecisions.pipeInput("T-1/c-1".getBytes(StandardCharsets.UTF_8), new byte[] {1, 2, 3});
        List<DeadLetter> letters = gate.deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getReason).satisfiesExactly(
                r -> assertThat(r).matches("(TRUNCATED|MALFORMED): .*").doesNotContain("ops@example.com"),
                r -> assertThat(r).startsWith("UNKNOWN_FINGERPRINT"),
                r -> assertThat(r).startsWith("BAD_MARKER"));
        assertThat(letters.get(2).getSourceTopic()).isEqualTo("actiongate.decisions");
        gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldNameTheResembledRecordAndTheExpectedFingerprintInAnUnknownFingerprintDeadLetter() {
        byte[] encoded = Topics.PROPOSALS.valueSerde().serializer().serialize("t", proposal("c-1").build());
        // what a host gets from a Parsing Canonical Form whose named types are referenced, not inlined
        long wrong = io.actiongate.serde.Fingerprints.referencedFingerprint(
                io.actiongate.avro.ActionProposal.getClassSchema());
        for (int i = 0; i < 8; i++) {
            encoded[2 + i] = (byte) (wrong >>> (8 * i));
        }
        gate.rawProposals.pipeInput("T-1/c-1".getBytes(StandardCharsets.UTF_8), encoded);
        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(letter.getReason()).startsWith("UNKNOWN_FINGERPRINT")
                .contains("ActionProposal v1 with its named types referenced by name")
                .contains("expected ActionProposal v1 " + io.actiongate.serde.Fingerprints.wireHex(
                        io.actiongate.serde.Fingerprints.of(io.actiongate.avro.ActionProposal.getClassSchema())));
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldTreatAnUndecodablePolicyRecordAsAbsentAndFailClosed() {
        org.apache.kafka.streams.TestInputTopic<byte[], byte[]> rawPolicy = gate.driver.createInputTopic(
                "actiongate.policy", new org.apache.kafka.common.serialization.ByteArraySerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
        rawPolicy.pipeInput("epoch:acme".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xC3, 1, 9, 9});
        gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt().getReasonCode()).isEqualTo(ReasonCode.AUTHORIZATION_EPOCH_CHANGED.name());
        gate.epoch(1);
        gate.propose(proposal("c-2"));
        assertThat(gate.lastReceipt().getStatus()).as("the next good policy record is used").isEqualTo(
                ReceiptStatus.WAITING_APPROVAL);
    }

    @Test
    void shouldDeadLetterAnOutcomeForAnUnknownAction() {
        gate.report(gate.outcome(proposal("c-404").build(), 1, OutcomeStatus.SUCCEEDED));
        assertThat(gate.deadLetters.readValue().getSourceTopic()).isEqualTo("actiongate.outcomes");
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldBuildEveryDeadLetterInTheOneHandlerWithHashAndSizeButNeverThePayload() {
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        context.setRecordMetadata("actiongate.decisions", 4, 99L);
        context.setCurrentSystemTimeMs(1234L);
        byte[] payload = ("secret " + PASSWORD).getBytes(StandardCharsets.UTF_8);
        DeadLetters.send(context, "k".getBytes(StandardCharsets.UTF_8), payload, ReasonCode.APPROVAL_REUSED, "reused");
        List<MockProcessorContext.CapturedForward<? extends Object, ? extends Object>> forwarded = context.forwarded();
        assertThat(forwarded).hasSize(1);
        assertThat(forwarded.get(0).childName()).contains(DeadLetters.SINK);
        Record<? extends Object, ? extends Object> record = forwarded.get(0).record();
        DeadLetter letter = (DeadLetter) record.value();
        assertThat(letter.getSourceTopic()).isEqualTo("actiongate.decisions");
        assertThat(letter.getPartition()).isEqualTo(4);
        assertThat(letter.getOffset()).isEqualTo(99L);
        assertThat(letter.getPayloadSha256()).isEqualTo(Digests.sha256Hex(payload));
        assertThat(letter.getPayloadSize()).isEqualTo(payload.length);
        assertThat(letter.toString()).doesNotContain(PASSWORD);
        assertThat(DeadLetters.of(Optional.empty(), null, ReasonCode.SCHEMA_INVALID, "x", 1L).getPayloadSize())
                .isZero();
    }

    @Test
    void shouldNeverEchoPlantedSecretsFromARejectedProposal() {
        String input = "{\"to\":\"ops@example.com\",\"aws\":\"" + AWS_KEY + "\",\"password\":\"" + PASSWORD + "\"}";
        gate.propose(withInput(proposal("c-1"), input).setSummary("rotate " + AWS_KEY));
        gate.propose(withInput(proposal("c-1"), input.replace("ops@", "dev@"))); // a conflict with it
        gate.rawProposals.pipeInput("T-1/c-9".getBytes(StandardCharsets.UTF_8),
                ("junk " + PASSWORD).getBytes(StandardCharsets.UTF_8));
        List<String> outputs = gate.redactedOutputsAsText();
        assertThat(outputs).isNotEmpty();
        assertThat(String.join("\n", outputs))
                .contains(ReasonCode.CREDENTIAL_MATERIAL.name())
                .doesNotContain(PASSWORD)
                .doesNotContain(AWS_KEY)
                .doesNotContain("ops@example.com");
        assertThat(gate.rawAttempts.isEmpty()).isTrue();
    }

    @Test
    void shouldNeverEchoTheInputInReceiptsConflictsOrDeadLettersOfANormalFlow() {
        String marker = "MARKER-7f3c9a1e-do-not-echo";
        String input = "{\"to\":\"ops@example.com\",\"body\":\"" + marker + "\"}";
        ActionProposal p = gate.propose(withInput(proposal("c-1"), input).setSummary("Email " + marker));
        gate.propose(withInput(proposal("c-1"), "{\"body\":\"" + marker + "-2\"}"));
        gate.approve(p);
        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN).setErrorDetail(marker));
        gate.reconcile(p, 1, io.actiongate.avro.Verdict.EFFECT_CONFIRMED);
        gate.advance(Duration.ofSeconds(5));
        String all = String.join("\n", gate.redactedOutputsAsText());
        assertThat(all).as("the flow reached the reconciled receipt").contains("prov-9").doesNotContain(marker);
        assertThat(new String(gate.rawAttempts.readValue(), StandardCharsets.UTF_8))
                .as("only the executor's reservation carries the input").contains(marker);
    }

    @Test
    void shouldRepeatNoCredentialOfARefusedRecordInAnyReceiptConflictOrDeadLetter() {
        // every refusal path of the gate, fed the six token shapes where input goes
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        int n = 0;
        try {
            for (String token : io.actiongate.testing.TokenShapes.all().values()) {
                String q = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.textNode(token).toString();
                for (String input : List.of("{\"body\":" + token + "}", "{" + q + ":1," + q + ":2}", q,
                        "{" + q + ":\"x\"}", "{\"body\":" + q + "}", "[" + q + "]")) {
                    String call = "c-" + n++;
                    gate.propose(proposal(call).setInputJson(input)
                            .setInputDigest(Digests.PREFIX + Digests.sha256Hex(input.getBytes(StandardCharsets.UTF_8))));
                }
                gate.propose(proposal("c-" + n++).setSummary("rotate " + token));
                gate.propose(proposal("c-" + n++).setIdempotencyKey(token));
                gate.propose(proposal("c-" + n++).setBusinessOperationId(token));
                gate.propose(proposal("c-" + n++).setInputDigest(token));
                gate.propose(proposal("c-" + n++).setTaskId(token + " x"));
                gate.propose(proposal("c-" + n++).setAttachments(List.of(io.actiongate.avro.Attachment.newBuilder()
                        .setObjectKey("../" + token).setSha256(token).setSizeBytes(1).setContentType(token)
                        .setOwnerInvocationId(token).build())));
                gate.propose(withInput(proposal("c-0"), "{\"other\":" + q + "}")); // a conflict with c-0
                gate.rawProposals.pipeInput(("T-1/c-" + n++).getBytes(StandardCharsets.UTF_8),
                        ("junk " + token).getBytes(StandardCharsets.UTF_8));
                gate.rawDecisions.pipeInput("T-1/c-0".getBytes(StandardCharsets.UTF_8),
                        ("junk " + token).getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            root.detachAppender(logs);
        }
        List<String> outputs = gate.redactedOutputsAsText();
        assertThat(String.join("\n", outputs)).contains(ReasonCode.CREDENTIAL_MATERIAL.name(),
                ReasonCode.SCHEMA_INVALID.name(), ReasonCode.DIGEST_MISMATCH.name(),
                ReasonCode.ATTACHMENT_INVALID.name());
        assertThat(outputs).noneMatch(io.actiongate.testing.TokenShapes::leaks);
        assertThat(logs.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .noneMatch(io.actiongate.testing.TokenShapes::leaks);
    }
}
