package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.ActionStateSerde;
import io.actiongate.gate.internal.JsonSerde;
import io.actiongate.topics.Topics;

/**
 * The records one read-only action costs: every record the gate writes to a sink topic or a changelog, counted for
 * one auto-approved read from its proposal to its outcome. With logged action timers it was 9 (three receipts, a
 * reservation, two action-changelog entries and three timer-changelog entries), 10 with the outcome. The benchmark's
 * skeleton row writes the same mix (load-tests' {@code ReadOnlyRecordMix}, which row f's measured budget checks).
 */
class RecordsPerActionTest {

    @TempDir
    Path stateDir;

    @Test
    void shouldWriteOneReceiptPerInputRecordAndNoTimerChangelogForAReadOnlyAction() {
        try (GateDriver gate = GateDriver.start(stateDir).demoPolicy()) {
            ActionProposal p = GateDriver.lookup("c-1").build();
            gate.drain();
            produced(gate); // whatever the policy writes is not the action's

            gate.propose(GateDriver.lookup("c-1"));
            gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));
            gate.advance(java.time.Duration.ofSeconds(1)); // a punctuation: timers write nothing either

            String prefix = gate.config.topicPrefix();
            Map<String, Integer> counts = produced(gate);
            assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of(
                    Topics.RECEIPTS.name(prefix), 2, // DISPATCHING, SUCCEEDED: no APPROVED in between
                    Topics.ATTEMPTS.name(prefix), 1,
                    GateDriver.APPLICATION_ID + "-" + GateStores.ACTIONS + "-changelog", 2)); // no timer changelog
            assertThat(counts.values().stream().mapToInt(Integer::intValue).sum() + 1)
                    .as("records per read-only action, the executor's outcome included").isEqualTo(6);
        }
    }

    /**
     * Bytes of a {@code gate-actions} changelog entry (value, layout 2) for a read-only action, as it is proposed and
     * as it settles (measured 388 and 375 bytes; the same states in layout 1, JSON, 872 and 916).
     */
    static final int MAX_ACTION_ENTRY_BYTES = 400;

    @Test
    void shouldWriteActionChangelogEntriesInTheBinaryLayoutUnderTheBound() {
        try (GateDriver gate = GateDriver.start(stateDir).demoPolicy()) {
            ActionProposal p = GateDriver.lookup("c-1").build();
            gate.drain();
            produced(gate);
            gate.propose(GateDriver.lookup("c-1"));
            gate.report(gate.outcome(p, 1, OutcomeStatus.SUCCEEDED));

            String changelog = GateDriver.APPLICATION_ID + "-" + GateStores.ACTIONS + "-changelog";
            List<byte[]> entries = gate.driver.createOutputTopic(changelog, Serdes.ByteArray().deserializer(),
                    Serdes.ByteArray().deserializer()).readValuesToList();
            assertThat(entries).hasSize(2);
            ActionStateSerde binary = new ActionStateSerde();
            JsonSerde<ActionState> json = new JsonSerde<>(ActionState.class);
            for (byte[] entry : entries) {
                ActionState state = binary.deserialize(changelog, entry);
                int jsonBytes = json.serialize(changelog, state).length;
                assertThat(entry.length).as("%s: layout 2 %d bytes, layout 1 %d bytes", state.phase(), entry.length,
                        jsonBytes).isLessThanOrEqualTo(MAX_ACTION_ENTRY_BYTES);
                assertThat(jsonBytes).as("the bound fails on the JSON layout").isGreaterThan(MAX_ACTION_ENTRY_BYTES);
            }
            ActionState settled = binary.deserialize(changelog, entries.get(1));
            assertThat(settled.phase().terminal()).isTrue();
            assertThat(settled.action().inputJson()).as("a settled action keeps no input").isNull();
            assertThat(entries.get(1).length).isLessThan(entries.get(0).length + 40); // attempt details, no input
        }
    }

    @Test
    void shouldAnswerAnAutoApprovedProposalWithDispatchingAsItsOnlyReceipt() {
        try (GateDriver gate = GateDriver.start(stateDir).demoPolicy()) {
            gate.drain();
            gate.propose(GateDriver.lookup("c-1"));
            assertThat(gate.receipts()).extracting(r -> r.getStatus()).containsExactly(ReceiptStatus.DISPATCHING);
            assertThat(gate.observedReceipts).extracting(r -> r.getStatus()).containsExactly(ReceiptStatus.DISPATCHING);
        }
    }

    /** Records produced to each topic since the last call (reading them consumes them). */
    private static Map<String, Integer> produced(GateDriver gate) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String topic : gate.driver.producedTopicNames()) {
            int n = gate.driver.createOutputTopic(topic, Serdes.ByteArray().deserializer(),
                    Serdes.ByteArray().deserializer()).readRecordsToList().size();
            if (n > 0) {
                counts.put(topic, n);
            }
        }
        return counts;
    }
}
