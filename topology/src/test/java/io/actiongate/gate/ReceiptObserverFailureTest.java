package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.gate.internal.ReceiptObserverProcessor;

/** An observer of receipts (metrics) that throws never holds back a receipt or stops the gate. */
class ReceiptObserverFailureTest {

    @Test
    void shouldPublishTheReceiptWhenTheObserverThrows() {
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        ReceiptObserverProcessor processor = new ReceiptObserverProcessor(r -> {
            throw new IllegalStateException("metrics registry closed");
        });
        processor.init(context);
        Receipt receipt = Receipt.newBuilder().setTaskId("T-1").setToolCallId("c-1").setStatus(ReceiptStatus.APPROVED)
                .setToolName("send").setProvider("webhook").setOperation("send").setInputDigest("sha256:x")
                .setActionDigest(null).setReasonCode(null).setReason(null).setAttempts(List.of())
                .setProviderReceiptId(null).setResolvedBy(null).setOrgId(null).setDecisionId(null)
                .setUpdatedAt(Instant.EPOCH).build();
        processor.process(new Record<>("T-1/c-1", receipt, 0L));
        assertThat(context.forwarded()).singleElement().satisfies(f -> assertThat(f.record().value()).isEqualTo(receipt));
    }
}
