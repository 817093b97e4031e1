package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.IdempotencyKeys;

/**
 * Every value the gate has ever written to its stores and their changelogs, and the origin headers of its hop
 * records, as the build of its time wrote it (src/test/resources/recorded/{generator}-{commit}/gate; made as
 * formats/README.md says), read by this build: {@code gate-actions} in JSON layout 1 as it grew (no trace; a trace;
 * the approver) and in layout 2, decision claims, the timer keys of every kind, pending and decision-id values.
 * A layout this build writes has its bytes recorded, and this build writes exactly them.
 */
class RecordedGateStateTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long EPOCH = 1_767_225_600_000L;
    private static final String KEY = "T-1/call-7";
    private static final Map<String, String> TRACE = Map.of("traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");

    private final ActionStateSerde serde = new ActionStateSerde();

    static Path root() {
        try {
            return Path.of(RecordedGateStateTest.class.getResource("/recorded").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every recorded file named {@code name} under a generator's gate folder, oldest generator first. */
    static List<Path> recorded(String name) {
        try (Stream<Path> generators = Files.list(root())) {
            return generators.sorted().map(g -> g.resolve("gate").resolve(name)).filter(Files::isRegularFile)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String generator(Path file) {
        return file.getParent().getParent().getFileName().toString();
    }

    @Test
    void shouldReadEveryJsonLayoutOfTheActionStoreWithEveryStoredField() throws IOException {
        List<Path> layout1 = new ArrayList<>();
        for (String name : List.of("actions-dispatching.bin", "actions-rejected.bin", "actions-reconciled.bin")) {
            for (Path file : recorded(name)) {
                byte[] bytes = read(file);
                if (bytes[0] != '{') {
                    continue;
                }
                layout1.add(file);
                ActionState state = serde.deserialize("gate-actions-changelog", bytes);
                // every member the old gate stored reads back with its value, and nothing else is set
                JsonNode stored = JSON.readTree(bytes);
                JsonNode read = JSON.readTree(new JsonSerde<>(ActionState.class).serialize(null, state));
                assertThat(read).as("%s/%s read by this build", generator(file), name).isEqualTo(stored);
                assertThat(state.v()).isEqualTo(1);
                assertThat(state.key()).isEqualTo(KEY);
                // the next change of the action writes it in the current layout, which reads back the same
                assertThat(serde.deserialize("t", serde.serialize("t", state)))
                        .as("%s/%s rewritten in layout %d", generator(file), name, ActionStateSerde.LAYOUT)
                        .isEqualTo(new ActionState(ActionStateSerde.LAYOUT, state.action(), state.phase(),
                                state.reasonCode(), state.reason(), state.actionDigest(), state.decisionId(),
                                state.approvalExpiresAt(), state.approvedBy(), state.attempts(),
                                state.providerReceiptId(), state.resolvedBy(), state.resolutionId(), state.timerKey(),
                                state.dueAt(), state.createdAt(), state.updatedAt(), state.trace()));
            }
        }
        // the three shapes JSON layout 1 had: before the trace (g1), with it (g2), with the approver (g3)
        assertThat(layout1.stream().map(RecordedGateStateTest::generator).distinct().toList())
                .containsExactly("g1-be3765c", "g2-2fc922b", "g3-c19faef");
        ActionState g1 = serde.deserialize("t", read(recorded("actions-dispatching.bin").get(0)));
        assertThat(g1.trace()).isNull();
        assertThat(g1.approvedBy()).isNull();
        assertThat(g1.attempts()).extracting(ActionState.AttemptRecord::status)
                .containsExactly(DispatchResult.Status.RETRYABLE, null);
        assertThat(g1.timerKey()).isEqualTo(Timers.key(EPOCH + 125_000, Timers.Kind.LEASE, KEY));
        ActionState g2 = serde.deserialize("t", read(recorded("actions-rejected.bin").get(1)));
        assertThat(g2.trace()).isEqualTo(TRACE);
        assertThat(g2.reasonCode()).isEqualTo(ReasonCode.CREDENTIAL_MATERIAL);
        assertThat(g2.resolvedBy()).isEqualTo(ActionState.Resolver.GATE);
        ActionState g3 = serde.deserialize("t", read(recorded("actions-reconciled.bin").get(2)));
        assertThat(g3.approvedBy()).isEqualTo("alice@example.com");
        assertThat(g3.resolvedBy()).isEqualTo(ActionState.Resolver.RECONCILER);
        assertThat(g3.providerReceiptId()).isEqualTo("r-0001");
    }

    @Test
    void shouldReadLayoutTwoAsItWasWrittenAndWriteExactlyThoseBytes() {
        Map<String, ActionState> expected = Map.of(
                "actions-dispatching.bin", dispatching(),
                "actions-rejected.bin", rejected(),
                "actions-reconciled.bin", reconciled(),
                "actions-waiting.bin", waiting());
        int checked = 0;
        for (Map.Entry<String, ActionState> e : expected.entrySet()) {
            for (Path file : recorded(e.getKey())) {
                byte[] bytes = read(file);
                if (bytes[0] == '{') {
                    continue;
                }
                assertThat(serde.deserialize("gate-actions-changelog", bytes))
                        .as("%s/%s read by this build", generator(file), e.getKey()).isEqualTo(e.getValue());
                assertThat(serde.serialize("gate-actions-changelog", e.getValue()))
                        .as("%s written by this build against %s", e.getKey(), generator(file)).isEqualTo(bytes);
                checked++;
            }
        }
        assertThat(checked).as("recordings of layout %d, the layout this build writes", ActionStateSerde.LAYOUT)
                .isEqualTo(4);
    }

    @Test
    void shouldReadEveryOtherStoreValueAndHopHeaderEverWritten() throws IOException {
        for (Path file : recorded("decision-claims.bin")) {
            DecisionClaim claim = new JsonSerde<>(DecisionClaim.class).deserialize("t", read(file));
            assertThat(claim).as(generator(file)).isEqualTo(new DecisionClaim(1, KEY,
                    "alice-1:" + HexFormat.of().formatHex(sampleBytes("signature", 64)),
                    EPOCH + 2_000));
        }
        TreeSet<Timers.Kind> kinds = new TreeSet<>();
        for (Path file : recorded("timers.tsv")) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] kv = line.split("\t");
                Timers.Timer timer = Timers.parse(kv[0]);
                assertThat(timer.due()).isEqualTo(EPOCH + 60_000);
                assertThat(timer.id()).isEqualTo(kv[1]);
                kinds.add(timer.kind());
            }
        }
        assertThat(kinds).as("timer kinds ever logged in gate-timers").containsExactly(Timers.Kind.values());
        for (Path file : recorded("pending-origin.bin")) {
            assertThat(Serdes.String().deserializer().deserialize("t", read(file))).isEqualTo("conv-1");
        }
        for (Path file : recorded("pending-none.bin")) {
            assertThat(Serdes.String().deserializer().deserialize("t", read(file))).isEmpty();
        }
        for (Path file : recorded("decision-ids.bin")) {
            assertThat(Serdes.Long().deserializer().deserialize("t", read(file))).isEqualTo(EPOCH + 2_000);
        }
        for (Path file : recorded("hop-origin-headers.tsv")) {
            RecordHeaders headers = new RecordHeaders();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] kv = line.split("\t");
                headers.add(kv[0], HexFormat.of().parseHex(kv[1]));
            }
            assertThat(Origin.read(headers)).as(generator(file))
                    .isEqualTo(new Origin("actiongate.proposals", 3, 42));
        }
        assertThat(recorded("decision-claims.bin")).hasSize(2);
        assertThat(recorded("hop-origin-headers.tsv")).hasSize(2);
    }

    /** The generators' sample bytes (schemas-avro's test {@code Fill.bytes}): SHA-256 of the name and a counter. */
    static byte[] sampleBytes(String name, int n) {
        try {
            byte[] out = new byte[n];
            for (int i = 0; i * 32 < n; i++) {
                byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                        .digest((name + "#" + i).getBytes(StandardCharsets.UTF_8));
                System.arraycopy(d, 0, out, i * 32, Math.min(32, n - i * 32));
            }
            return out;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // the actions of generator g4 (formats/generators/g4-a42d5b3), built with this build's classes

    static ActionState.Action action(String idempotencyKey) {
        return new ActionState.Action("T-1", "call-7", 3, "acme", "user-42", "agent", 5, "webhook", "send_email",
                "send_email", "sha256:schema-v1", "{\"to\":\"ops@example.com\",\"note\":\"recorded\"}",
                "sha256:" + "1".repeat(64), "Tell ops that the recording works", idempotencyKey, "bo-1",
                new ActionState.OriginRef("conv-1", "turn-1", "am-1", "hm-1"),
                List.of(new ActionState.AttachmentRef("T-1/call-7/report.pdf", "sha256:" + "2".repeat(64), 1234L,
                        "application/pdf", KEY)));
    }

    static ActionState dispatching() {
        return new ActionState(2, action("idem-T-1-call-7"), Phase.DISPATCHING, null, null,
                "sha256:" + "3".repeat(64), "d-0001", EPOCH + 3_600_000, "alice@example.com",
                List.of(new ActionState.AttemptRecord(1, EPOCH + 1_000, EPOCH + 61_000,
                                DispatchResult.Status.RETRYABLE, false, null, "CONNECT_REFUSED", EPOCH + 1_100,
                                EPOCH + 1_200),
                        ActionState.AttemptRecord.reserved(2, EPOCH + 5_000, EPOCH + 65_000)),
                null, null, null, Timers.key(EPOCH + 125_000, Timers.Kind.LEASE, KEY), EPOCH + 125_000, EPOCH,
                EPOCH + 5_000, TRACE);
    }

    static ActionState rejected() {
        return new ActionState(2, action("idem-T-1-call-7").withoutInput(), Phase.REJECTED,
                ReasonCode.CREDENTIAL_MATERIAL, "input carries credential material", null, null, null, null,
                List.of(), null, ActionState.Resolver.GATE, null, null, EPOCH + 604_800_000L, EPOCH, EPOCH, TRACE);
    }

    static ActionState reconciled() {
        return new ActionState(2, action("idem-T-1-call-7").settled(), Phase.SUCCEEDED, null, null,
                "sha256:" + "3".repeat(64), "d-0001", EPOCH + 3_600_000, "alice@example.com",
                List.of(new ActionState.AttemptRecord(1, EPOCH + 1_000, EPOCH + 61_000,
                        DispatchResult.Status.UNKNOWN, true, null, "TIMEOUT", EPOCH + 1_100, EPOCH + 2_600)),
                "r-0001", ActionState.Resolver.RECONCILER, null, null, EPOCH + 604_900_000L, EPOCH,
                EPOCH + 100_000, TRACE);
    }

    static ActionState waiting() {
        return new ActionState(2, action(IdempotencyKeys.derived(KEY)), Phase.WAITING_APPROVAL, null, null,
                "sha256:" + "3".repeat(64), null, null, null, List.of(), null, null, null,
                Timers.key(EPOCH + 86_400_000L, Timers.Kind.APPROVAL_DEADLINE, KEY), EPOCH + 86_400_000L, EPOCH,
                EPOCH, TRACE);
    }
}
