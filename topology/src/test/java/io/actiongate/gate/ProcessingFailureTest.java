package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.lookup;
import static io.actiongate.gate.GateDriver.proposal;
import static io.actiongate.gate.GateDriver.withInput;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;

/** A record whose processing throws never stops the gate, through the whole topology. */
class ProcessingFailureTest {

    private static final String POISON = "poison-4471";

    @TempDir
    Path stateDir;
    GateDriver gate;

    @AfterEach
    void stop() {
        gate.close();
    }

    @Test
    void shouldDeadLetterARecordThatThrowsAndKeepThePartitionMoving() {
        gate = GateDriver.start(stateDir, (input, summary) -> {
            if (input.contains(POISON)) {
                throw new IllegalStateException("scanner bug on " + input);
            }
            return Optional.empty();
        }).demoPolicy();

        gate.propose(withInput(proposal("c-1"), "{\"to\":\"ops@example.com\",\"body\":\"" + POISON + "\"}"));
        List<String> outputs = gate.redactedOutputsAsText();
        assertThat(outputs).noneMatch(s -> s.contains(POISON));
        assertThat(gate.observedReceipts).as("nothing of the failed record is applied").isEmpty();
        assertThat(gate.attempts.isEmpty()).isTrue();

        gate.propose(withInput(proposal("c-2"), "{\"to\":\"ops@example.com\",\"body\":\"" + POISON + "\"}"));
        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(letter.getReason()).contains("failed (IllegalStateException)");
        assertThat(letter.getSourceTopic()).endsWith("proposals");
        assertThat(letter.getPayloadSize()).isPositive();

        // the next records on the partition are processed as usual
        gate.propose(lookup("c-3"));
        Receipt r = gate.lastReceipt();
        assertThat(r.getStatus()).isEqualTo(ReceiptStatus.DISPATCHING);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        // the failed key holds nothing: a corrected redelivery is a fresh proposal
        gate.propose(proposal("c-1"));
        assertThat(gate.lastReceipt().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
    }
}
