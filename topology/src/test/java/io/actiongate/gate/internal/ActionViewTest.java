package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ReceiptStatus;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.ActionView;
import io.actiongate.gate.IdempotencyKeys;

/** The public read model shows a store value as the gate would publish it, and nothing of its internal model. */
class ActionViewTest {

    @Test
    void shouldViewAStoredActionAsItsReceiptPhaseSummaryAndTimer() {
        ActionState state = ActionState.fresh(InternalModelTest.action(), "sha256:d", 10L)
                .to(Phase.APPROVED, null, null, 10L)
                .withAttempt(ActionState.AttemptRecord.reserved(1, 10L, 70L))
                .to(Phase.DISPATCHING, null, null, 10L)
                .withAttempt(ActionState.AttemptRecord.reserved(1, 10L, 70L)
                        .observed(DispatchResult.Status.RETRYABLE, false, 429, "RATE_LIMITED", 11L, 12L))
                .to(Phase.RETRY_WAIT, ReasonCode.RATE_LIMITED, "attempt 2 scheduled", 12L).withTimer("k", 99L);

        ActionView view = ActionView.ofStoreValue(state);

        assertThat(view.receipt()).isEqualTo(StateRecords.receipt(state));
        assertThat(view.receipt().getStatus()).isEqualTo(ReceiptStatus.APPROVED);
        assertThat(view.phase()).isEqualTo("RETRY_WAIT");
        assertThat(view.summary()).isEqualTo("MARKER-summary");
        assertThat(view.nextTimerAt()).isEqualTo(Instant.ofEpochMilli(99L));
        assertThat(view.toString()).doesNotContain("MARKER-secret-body");
    }

    @Test
    void shouldLeaveOutTheTimerOfAnActionWithoutOne() {
        ActionView view = ActionView.ofStoreValue(ActionState.fresh(InternalModelTest.action(), "sha256:d", 10L)
                .to(Phase.WAITING_APPROVAL, null, null, 10L));
        assertThat(view.phase()).isEqualTo("WAITING_APPROVAL");
        assertThat(view.nextTimerAt()).isNull();
    }

    @Test
    void shouldRefuseAValueOfAnotherStore() {
        assertThatThrownBy(() -> ActionView.ofStoreValue("a string")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gate-actions").hasMessageContaining("java.lang.String");
        assertThatThrownBy(() -> ActionView.ofStoreValue(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldDeriveTheIdempotencyKeyTheGateUsesForAProposalWithoutOne() {
        assertThat(InternalModelTest.action().idempotencyKey()).isEqualTo(IdempotencyKeys.derived("T-1/c-1"))
                .startsWith("ag-").hasSize(3 + 64);
    }
}
