package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.proposal;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.serde.ReceiptHeaders;

/** Every receipt states how many attachments its action has, so the attachment cleaner can skip the ones without. */
class ReceiptHeadersTest {

    @TempDir
    Path stateDir;
    GateDriver gate;

    @AfterEach
    void stop() {
        gate.close();
    }

    @Test
    void shouldStateTheActionsAttachmentCountOnEveryReceipt() {
        gate = GateDriver.start(stateDir, Map.of()).demoPolicy();
        ActionProposal plain = proposal("c-plain").build();
        gate.proposals.pipeInput(GateDriver.key(plain), plain);
        ActionProposal withTwo = proposal("c-two").setAttachments(List.of(
                AdmissionTest.attachment().build(),
                AdmissionTest.attachment().setObjectKey("uploads/other.pdf").build())).build();
        gate.proposals.pipeInput(GateDriver.key(withTwo), withTwo);

        List<TestRecord<String, Receipt>> receipts = gate.receipts.readRecordsToList();
        assertThat(receipts).hasSize(2);
        assertThat(receipts.get(0).value().getStatus()).isEqualTo(ReceiptStatus.WAITING_APPROVAL);
        assertThat(ReceiptHeaders.attachments(receipts.get(0).headers())).hasValue(0);
        // refused (no storage to verify them): the refused action still names how many it had, so they are cleaned
        assertThat(receipts.get(1).value().getStatus()).isEqualTo(ReceiptStatus.REJECTED);
        assertThat(ReceiptHeaders.attachments(receipts.get(1).headers())).hasValue(2);

        // a redelivery re-publishes the receipt, with the header
        gate.proposals.pipeInput(GateDriver.key(withTwo), withTwo);
        assertThat(gate.receipts.readRecordsToList()).singleElement()
                .satisfies(r -> assertThat(ReceiptHeaders.attachments(r.headers())).hasValue(2));
    }
}
