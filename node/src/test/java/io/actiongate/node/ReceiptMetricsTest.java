package io.actiongate.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.http.GateMetrics;

/** Receipts become per-action metrics: re-published receipts do not count twice. */
class ReceiptMetricsTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ReceiptMetrics observer = new ReceiptMetrics(new GateMetrics(registry));
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    @Test
    void shouldMeasureTheApprovalWaitOncePerActionFromItsFirstWaitingReceipt() throws IOException {
        observer.published(receipt("c-1", ReceiptStatus.WAITING_APPROVAL, T0, null, null));
        observer.published(receipt("c-1", ReceiptStatus.WAITING_APPROVAL, T0.plusSeconds(20), null, null));
        observer.published(receipt("c-1", ReceiptStatus.APPROVED, T0.plusSeconds(90), "d-1", null));
        observer.published(receipt("c-1", ReceiptStatus.APPROVED, T0.plusSeconds(95), "d-1", null));

        assertThat(scrape())
                .contains("actiongate_approval_wait_seconds_count 1")
                .contains("actiongate_approval_wait_seconds_sum 90.0")
                .contains("actiongate_receipts_total{reason_code=\"none\",status=\"WAITING_APPROVAL\"} 2");
    }

    @Test
    void shouldMeasureTheApprovalWaitUpToTheDispatchingReceiptThatAnApprovalAnswers() throws IOException {
        observer.published(receipt("c-2", ReceiptStatus.WAITING_APPROVAL, T0, null, null));
        observer.published(receipt("c-2", ReceiptStatus.DISPATCHING, T0.plusSeconds(30), "d-2", null));
        observer.published(receipt("c-2", ReceiptStatus.SUCCEEDED, T0.plusSeconds(31), "d-2", null));

        assertThat(scrape())
                .contains("actiongate_approval_wait_seconds_count 1")
                .contains("actiongate_approval_wait_seconds_sum 30.0");
    }

    @Test
    void shouldCountAnUnknownActionOnceUntilItIsResolved() throws IOException {
        observer.published(receipt("c-1", ReceiptStatus.UNKNOWN, T0, null, null));
        observer.published(receipt("c-1", ReceiptStatus.UNKNOWN, T0.plusSeconds(1), null, null));
        observer.published(receipt("c-2", ReceiptStatus.UNKNOWN, T0, null, null));
        assertThat(scrape()).contains("actiongate_unknown_outcomes_open 2.0");

        observer.published(receipt("c-1", ReceiptStatus.SUCCEEDED, T0.plusSeconds(5), null, ResolvedBy.RECONCILER));
        observer.published(receipt("c-1", ReceiptStatus.SUCCEEDED, T0.plusSeconds(6), null, ResolvedBy.RECONCILER));
        assertThat(scrape()).contains("actiongate_unknown_outcomes_open 1.0");
    }

    private static Receipt receipt(String call, ReceiptStatus status, Instant at, String decisionId,
                                   ResolvedBy resolvedBy) {
        return Receipt.newBuilder().setTaskId("T-1").setToolCallId(call).setStatus(status).setReasonCode(null)
                .setReason(null).setOrgId("acme").setToolName("send_email").setProvider("smtp")
                .setOperation("send_email").setInputDigest(null).setActionDigest(null).setDecisionId(decisionId)
                .setAttempts(List.of()).setProviderReceiptId(null).setResolvedBy(resolvedBy).setUpdatedAt(at)
                .build();
    }

    private String scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }
}
