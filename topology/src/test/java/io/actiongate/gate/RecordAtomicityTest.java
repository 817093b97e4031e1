package io.actiongate.gate;

import static io.actiongate.gate.GateDriver.lookup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedForward;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.DeadLetters;
import io.actiongate.gate.internal.Inbound;
import io.actiongate.gate.internal.Lifecycle;
import io.actiongate.gate.internal.ProposalProcessor;
import io.actiongate.gate.internal.Sinks;
import io.actiongate.gate.internal.StateRecords;

/**
 * One policy snapshot per record and one record as one unit, on the processors with
 * their stores in a {@link ProcessorHarness}.
 */
class RecordAtomicityTest {

    private final ProcessorHarness h = new ProcessorHarness().demoPolicy();
    private final GateConfig config = GateConfig.fromStrings(Map.of());

    private ProposalProcessor admission() {
        ProposalProcessor p = new ProposalProcessor(config, ScannerCredentialCheck.defaults(),
                FakeClassifiers.webhook());
        p.init(h.context);
        return p;
    }

    private static Record<String, Inbound<ActionProposal>> record(ActionProposal p) {
        String key = GateDriver.key(p);
        return new Record<>(key, new Inbound<>(p, key.getBytes(StandardCharsets.UTF_8),
                ("payload of " + p.getInputJson()).getBytes(StandardCharsets.UTF_8)), 0L);
    }

    private List<CapturedForward<?, ?>> forwardedTo(String child) {
        return h.context.forwarded().stream().filter(f -> child.equals(f.childName().orElse(null))).toList();
    }

    // ---- fix 2: one policy snapshot per record ------------------------------------------------------------

    @Test
    void shouldReadEveryPolicyRecordAtMostOncePerProposal() {
        admission().process(record(lookup("c-1").build()));
        assertThat(forwardedTo(Sinks.ATTEMPTS)).hasSize(1);
        assertThat(h.policy.reads).isNotEmpty().allSatisfy((key, reads) ->
                assertThat(reads).as("reads of %s", key).isEqualTo(1));
    }

    @Test
    void shouldDecideOnOneSnapshotWhenThePolicyChangesBetweenTwoReads() {
        // a policy update lands right after the first read of each record: the grant is revoked, the tool
        // switched to needing a human. Decided on the snapshot, the record neither throws nor mixes versions.
        h.policy.afterRead = (key, store) -> {
            if (key.startsWith("grant:")) {
                store.values.remove(key);
            }
            if (key.equals("tool:webhook:lookup")) {
                store.put(key, io.actiongate.avro.PolicyRecord.newBuilder().setKind("tool")
                        .setBody(GateDriver.tool(GateDriver.LOOKUP).build()).build());
            }
        };
        admission().process(record(lookup("c-1").build()));
        assertThat(forwardedTo(DeadLetters.SINK)).as("nothing failed").isEmpty();
        assertThat(forwardedTo(Sinks.ATTEMPTS)).as("admitted on the snapshot it read").hasSize(1);
        assertThat(h.actions.get("T-1/c-1").phase().name()).isEqualTo("DISPATCHING");
    }

    // ---- fix 3: a record is one unit ----------------------------------------------------------------------

    @Test
    void shouldUndoEveryWriteAndForwardOfARecordThatThrowsAndDeadLetterIt() {
        Lifecycle lifecycle = new Lifecycle(h.context, config, FakeClassifiers.webhook());
        ActionProposal p = lookup("c-1").build();
        Inbound<ActionProposal> in = record(p).value();
        lifecycle.atomically(in, "admission", () -> {
            ActionState admitted = ActionState.fresh(StateRecords.action(p), "sha256:d", 0L)
                    .to(io.actiongate.gate.internal.Phase.APPROVED, null, null, 0L);
            lifecycle.reserve(null, admitted); // writes actions, timers, pending; forwards attempt and receipt
            lifecycle.useDecision("d-1");
            throw new IllegalStateException("bug while handling " + p.getInputJson());
        });
        assertThat(ProcessorHarness.count(h.actions)).isZero();
        assertThat(ProcessorHarness.count(h.timerIndex)).isZero();
        assertThat(ProcessorHarness.count(h.timers)).as("the used decision's purge timer is undone too").isZero();
        assertThat(ProcessorHarness.count(h.pending)).isZero();
        assertThat(ProcessorHarness.count(h.decisionIds)).isZero();
        assertThat(forwardedTo(Sinks.ATTEMPTS)).as("no reservation escapes a failed record").isEmpty();
        assertThat(forwardedTo(Sinks.RECEIPTS)).isEmpty();
        List<CapturedForward<?, ?>> letters = forwardedTo(DeadLetters.SINK);
        assertThat(letters).hasSize(1);
        DeadLetter letter = (DeadLetter) letters.get(0).record().value();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(letter.getReason()).contains("admission failed (IllegalStateException)")
                .doesNotContain(p.getInputJson());
        assertThat(letter.getPayloadSize()).isEqualTo(in.rawValue().length);
        assertThat(letter.toString()).doesNotContain("disk is full");
    }

    @Test
    void shouldKeepWhatAnEarlierRecordWroteWhenALaterOneIsUndone() {
        Lifecycle lifecycle = new Lifecycle(h.context, config, FakeClassifiers.webhook());
        ActionProposal first = lookup("c-1").build();
        lifecycle.atomically(record(first).value(), "admission",
                () -> lifecycle.reserve(null, ActionState.fresh(StateRecords.action(first), "sha256:d", 0L)
                    .to(io.actiongate.gate.internal.Phase.APPROVED, null, null, 0L)));
        ActionState kept = h.actions.get("T-1/c-1");
        assertThat(kept.phase().name()).isEqualTo("DISPATCHING");
        lifecycle.atomically(record(first).value(), "outcome", () -> {
            lifecycle.save(kept, kept.to(io.actiongate.gate.internal.Phase.SUCCEEDED, null, null, 1L));
            throw new NullPointerException();
        });
        assertThat(h.actions.get("T-1/c-1")).isEqualTo(kept);
        assertThat(h.timerIndex.get(kept.timerKey())).isEqualTo("T-1/c-1");
        assertThat(forwardedTo(Sinks.RECEIPTS)).extracting(f -> ((Receipt) f.record().value()).getStatus())
                .containsExactly(ReceiptStatus.DISPATCHING);
        assertThat(forwardedTo(Sinks.ATTEMPTS)).extracting(f -> ((AttemptReservation) f.record().value()).getAttempt())
                .containsExactly(1);
    }

    @Test
    void shouldRefuseAnIllegalTransitionAsADeadLetterCountItAndChangeNothing() {
        Lifecycle lifecycle = new Lifecycle(h.context, config, FakeClassifiers.webhook());
        ActionProposal first = lookup("c-1").build();
        lifecycle.atomically(record(first).value(), "admission",
                () -> lifecycle.reserve(null, ActionState.fresh(StateRecords.action(first), "sha256:d", 0L)
                        .to(io.actiongate.gate.internal.Phase.APPROVED, null, null, 0L)));
        ActionState kept = h.actions.get("T-1/c-1");
        h.context.resetForwards();
        lifecycle.atomically(record(first).value(), "outcome", () -> {
            lifecycle.useDecision("d-9");
            lifecycle.save(kept, kept.to(io.actiongate.gate.internal.Phase.WAITING_APPROVAL, null, null, 1L));
        });
        assertThat(h.actions.get("T-1/c-1")).as("the action did not move").isEqualTo(kept);
        assertThat(h.decisionIds.get("d-9")).as("the record's other writes are undone").isNull();
        assertThat(forwardedTo(Sinks.RECEIPTS)).isEmpty();
        List<CapturedForward<?, ?>> letters = forwardedTo(DeadLetters.SINK);
        assertThat(letters).hasSize(1);
        DeadLetter letter = (DeadLetter) letters.get(0).record().value();
        assertThat(letter.getReasonCode()).isEqualTo(ReasonCode.SCHEMA_INVALID.name());
        assertThat(letter.getReason()).isEqualTo(
                "outcome refused: illegal transition DISPATCHING -> WAITING_APPROVAL; the record was not applied");
        assertThat(illegalTransitions()).isEqualTo(1.0);

        // a timer (no record to dead-letter) is kept as it was, counted, and the thread goes on
        lifecycle.atomically(null, "timer LEASE",
                () -> lifecycle.save(kept, kept.to(io.actiongate.gate.internal.Phase.DENIED, null, null, 1L)));
        assertThat(h.actions.get("T-1/c-1")).isEqualTo(kept);
        assertThat(illegalTransitions()).isEqualTo(2.0);
    }

    private double illegalTransitions() {
        return h.context.metrics().metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(Lifecycle.ILLEGAL_TRANSITIONS)
                        && e.getKey().group().equals(Lifecycle.METRIC_GROUP))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void shouldRethrowAFailureThatIsNotAboutTheRecordAfterUndoingIt() {
        Lifecycle lifecycle = new Lifecycle(h.context, config, FakeClassifiers.webhook());
        ActionProposal p = lookup("c-1").build();
        assertThatThrownBy(() -> lifecycle.atomically(record(p).value(), "admission", () -> {
            lifecycle.reserve(null, ActionState.fresh(StateRecords.action(p), "sha256:d", 0L)
                    .to(io.actiongate.gate.internal.Phase.APPROVED, null, null, 0L));
            throw new ProcessorStateException("store is gone");
        })).isInstanceOf(ProcessorStateException.class);
        assertThat(ProcessorHarness.count(h.actions)).isZero();
        assertThat(h.context.forwarded()).as("no dead letter: the record is processed again").isEmpty();
    }
}
