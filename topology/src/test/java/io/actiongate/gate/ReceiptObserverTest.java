package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;

/** The receipt observer (what feeds the receipts metric) sees exactly what the receipts topic gets. */
class ReceiptObserverTest {

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
    void shouldShowTheObserverEveryPublishedReceiptInOrder() {
        gate.approve(gate.propose(GateDriver.proposal("call-1")));
        gate.propose(GateDriver.proposal("call-2").setTaskVersion(7));

        List<Receipt> published = gate.receipts();
        assertThat(published).extracting(Receipt::getStatus).containsExactly(ReceiptStatus.WAITING_APPROVAL,
                ReceiptStatus.DISPATCHING, ReceiptStatus.REJECTED);
        assertThat(gate.observedReceipts).containsExactlyElementsOf(published);
        assertThat(gate.observedReceipts.get(2).getReasonCode()).isEqualTo("TASK_VERSION_CHANGED");
    }
}
