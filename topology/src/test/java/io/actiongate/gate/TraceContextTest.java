package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Verdict;

/**
 * The W3C trace context of a proposal (Kafka record headers) is carried to every record the gate writes for the
 * action: its receipts, its reservation and its unknown outcome, also when a later record without it (a decision,
 * an outcome) triggers the write, and across the state store (the gate's JSON state keeps it).
 */
class TraceContextTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";
    private static final String OTHER_TRACEPARENT = "00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01";

    @TempDir
    Path stateDir;
    GateDriver gate;

    @AfterEach
    void stop() {
        gate.close();
    }

    private ActionProposal proposeTraced(String call, String traceparent) {
        ActionProposal p = proposal(call).build();
        Headers headers = new RecordHeaders();
        if (traceparent != null) {
            headers.add("traceparent", traceparent.getBytes(StandardCharsets.US_ASCII));
            headers.add("tracestate", "vendor=abc".getBytes(StandardCharsets.US_ASCII));
        }
        gate.proposals.pipeInput(new TestRecord<>(GateDriver.key(p), p, headers));
        return p;
    }

    private static String header(TestRecord<?, ?> record, String name) {
        var h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.US_ASCII);
    }

    @Test
    void shouldCarryTheProposalsTraceToReceiptsReservationAndOutcomeReceipts() {
        gate = GateDriver.start(stateDir, Map.of()).demoPolicy();
        ActionProposal p = proposeTraced("c-1", TRACEPARENT);
        List<TestRecord<String, Receipt>> waiting = gate.receipts.readRecordsToList();
        assertThat(waiting).hasSize(1);
        assertThat(waiting.get(0).value().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        assertThat(header(waiting.get(0), "traceparent")).isEqualTo(TRACEPARENT);
        assertThat(header(waiting.get(0), "tracestate")).isEqualTo("vendor=abc");

        // the approval comes from elsewhere, under another trace: the action keeps its proposal's
        Decision approval = gate.sign(gate.decision(p, DecisionType.APPROVE));
        gate.decisions.pipeInput(new TestRecord<>(GateDriver.key(p), approval, traceHeaders(OTHER_TRACEPARENT)));
        List<TestRecord<String, AttemptReservation>> reservations = gate.attempts.readRecordsToList();
        assertThat(reservations).isNotEmpty();
        assertThat(reservations).allSatisfy(r -> assertThat(header(r, "traceparent")).isEqualTo(TRACEPARENT));
        List<TestRecord<String, Receipt>> approved = gate.receipts.readRecordsToList();
        assertThat(approved).extracting(r -> r.value().getStatus()).contains(ReceiptStatus.DISPATCHING);
        assertThat(approved).allSatisfy(r -> assertThat(header(r, "traceparent")).isEqualTo(TRACEPARENT));

        gate.report(gate.outcome(p, 1, OutcomeStatus.UNKNOWN));
        assertThat(gate.unknowns.readRecordsToList()).singleElement().satisfies(u ->
                assertThat(header(u, "traceparent")).isEqualTo(TRACEPARENT));
        gate.reconcile(p, 1, Verdict.EFFECT_CONFIRMED);
        List<TestRecord<String, Receipt>> settled = gate.receipts.readRecordsToList();
        assertThat(settled).extracting(r -> r.value().getStatus()).contains(ReceiptStatus.SUCCEEDED);
        assertThat(settled).allSatisfy(r -> assertThat(header(r, "traceparent")).contains(TRACE_ID));
    }

    @Test
    void shouldWriteNoTraceHeadersForAProposalWithoutOneOrWithAMalformedOne() {
        gate = GateDriver.start(stateDir, Map.of()).demoPolicy();
        proposeTraced("c-1", null);
        proposeTraced("c-2", "00-not-a-trace-01");
        List<TestRecord<String, Receipt>> receipts = gate.receipts.readRecordsToList();
        assertThat(receipts).hasSize(2);
        assertThat(receipts).allSatisfy(r -> assertThat(r.headers().lastHeader("traceparent")).isNull());
    }

    private static Headers traceHeaders(String traceparent) {
        Headers headers = new RecordHeaders();
        headers.add("traceparent", traceparent.getBytes(StandardCharsets.US_ASCII));
        return headers;
    }
}
