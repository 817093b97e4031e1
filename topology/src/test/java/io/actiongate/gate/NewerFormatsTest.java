package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;

import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.topics.Topics;

/**
 * Downgrades refused clearly: a record of a version this gate does not read stops it when only
 * actiongate's roles write its topic, before anything of it is applied or published; on a topic outside producers
 * write it stays a dead letter (docs/contract.md section 3). What GateStreams then does with the stream thread is
 * below; {@code DowngradeRefusalIT} (cli) runs it against a broker.
 */
class NewerFormatsTest {

    @TempDir
    Path stateDir;

    private GateDriver gate;

    @BeforeEach
    void start() {
        gate = GateDriver.start(stateDir).demoPolicy();
    }

    @AfterEach
    void stop() {
        gate.close();
    }

    /** {@code bytes} as if written in a schema version no release of this build knows (another fingerprint). */
    static byte[] newerVersion(byte[] bytes) {
        byte[] newer = bytes.clone();
        for (int i = 2; i < 10; i++) {
            newer[i] = (byte) (newer[i] ^ 0x5A);
        }
        return newer;
    }

    @Test
    void shouldStopOnAnOutcomeOfANewerVersionWithoutApplyingOrPublishingAnything() {
        ActionProposal p = gate.propose(proposal("c-1"));
        gate.approve(p);
        assertThat(gate.attempts.readValuesToList()).hasSize(1);
        gate.receipts();
        AttemptOutcome outcome = gate.outcome(p, 1, OutcomeStatus.SUCCEEDED).build();
        byte[] bytes = newerVersion(Topics.OUTCOMES.valueSerde().serializer().serialize(null, outcome));

        assertThatThrownBy(() -> gate.rawOutcomes.pipeInput(GateDriver.key(p).getBytes(StandardCharsets.UTF_8),
                bytes)).isInstanceOf(StreamsException.class)
                .satisfies(e -> assertThat(UnknownFormatException.in(e)).isNotNull()
                        .extracting(Throwable::getMessage).asString()
                        .contains("stops: actiongate.outcomes-0@0 holds AttemptOutcome with fingerprint ")
                        .contains("written by a newer actiongate release")
                        .contains("it reads AttemptOutcome v1"));
        assertThat(gate.receipts()).as("no receipt: the outcome was not applied").isEmpty();
        assertThat(gate.deadLetters.readValuesToList()).as("never a dead letter: that would lose it").isEmpty();
    }

    @Test
    void shouldKeepDeadLetteringAProposalOfAnUnknownVersion() {
        ActionProposal p = proposal("c-2").build();
        byte[] bytes = newerVersion(Topics.PROPOSALS.valueSerde().serializer().serialize(null, p));

        gate.rawProposals.pipeInput("T-1/c-2".getBytes(StandardCharsets.UTF_8), bytes);

        DeadLetter letter = gate.deadLetters.readValue();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(letter.getReason()).startsWith("UNKNOWN_FINGERPRINT");
        assertThat(gate.receipts()).isEmpty();
    }

    @Test
    void shouldStopTheGateRatherThanReplaceItsThreadOnANewerFormat() {
        UnknownFormatException newer = new UnknownFormatException("chaos.attempts-1@5", "AttemptReservation v3",
                "actiongate 0.2.0", "AttemptReservation v1 to v2");
        assertThat(GateStreams.uncaught(new StreamsException("failed to process", newer)))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(Topics.WRITTEN_ONLY_BY_ACTIONGATE).extracting(s -> s.suffix())
                .containsExactly("attempts", "outcomes", "unknown-outcomes", "reconciliations", "receipts",
                        "conflicts", "dead-letters");
        assertThat(Set.<Object>of(Topics.PROPOSALS, Topics.DECISIONS, Topics.POLICY))
                .doesNotContainAnyElementsOf(Topics.WRITTEN_ONLY_BY_ACTIONGATE);
    }
}
