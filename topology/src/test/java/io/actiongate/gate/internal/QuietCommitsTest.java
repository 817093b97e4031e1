package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.serde.AvroSerde;
import io.actiongate.topics.Topics;

class QuietCommitsTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final Duration GAP = Duration.ofMillis(10);

    private final QuietCommits quiet = QuietCommits.after(GAP);
    private MockProcessorContext<Object, Object> context;

    @BeforeEach
    void context() {
        context = new MockProcessorContext<>(new Properties(), new TaskId(0, 0), null);
        context.setCurrentSystemTimeMs(NOW);
    }

    /** Feeds one contract record stamped {@code timestamp} at wall clock {@code now}; whether a commit was asked. */
    private boolean input(long now, long timestamp) {
        context.resetCommit();
        context.setCurrentSystemTimeMs(now);
        quiet.input(context, timestamp);
        return context.committed();
    }

    private boolean hop(long now) {
        context.resetCommit();
        context.setCurrentSystemTimeMs(now);
        quiet.hop(context);
        return context.committed();
    }

    @Test
    void shouldAskForACommitAfterARecordThatArrivedAlone() {
        assertThat(input(NOW, NOW)).as("the thread's first record").isTrue();
        assertThat(input(NOW + 50, NOW + 40)).as("40 ms after the one before").isTrue();
        assertThat(input(NOW + 60, NOW + 50)).as("exactly the gap").isTrue();
    }

    @Test
    void shouldLeaveRecordsUnderLoadToTheCommitInterval() {
        input(NOW, NOW);
        for (int i = 1; i <= 100; i++) {
            assertThat(input(NOW + 100 + i, NOW + i)).as("record %d, 1 ms after the one before", i).isFalse();
        }
        assertThat(hop(NOW + 200)).as("a hop record while the inputs are busy").isFalse();
    }

    @Test
    void shouldNotTakeTheFirstRecordOfEachBurstOfALoadedClosedLoopForQuiet() {
        // the executor's outcomes (or a host's next calls) arrive in bursts that the gate's commits release: 30
        // records within a millisecond, every 50 ms, each burst 49 ms after the one before
        int asked = 0;
        for (int burst = 0; burst < 10; burst++) {
            long at = NOW + burst * 50L;
            for (int i = 0; i < 30; i++) {
                asked += input(at, at) ? 1 : 0;
            }
        }
        assertThat(asked).as("only the very first record, before the thread was busy").isEqualTo(1);
        assertThat(input(NOW + 520, NOW + 520)).as("20 ms after the last burst: the last window still counts")
                .isFalse();
        assertThat(input(NOW + 700, NOW + 700)).as("a record alone after the load stopped").isTrue();
    }

    @Test
    void shouldNotLetTheTimeSpentCommittingMakeTheNextRecordQuiet() {
        input(NOW, NOW);
        // a commit held the thread for 30 ms: the wall clock moved, the producers' timestamps did not
        assertThat(input(NOW + 30, NOW + 1)).isFalse();
        assertThat(input(NOW + 31, NOW + 2)).isFalse();
    }

    @Test
    void shouldCommitHopRecordsAtOnceOnlyWhileTheThreadsInputsAreQuiet() {
        assertThat(hop(NOW)).as("no contract record read yet").isFalse();
        input(NOW, NOW);
        assertThat(hop(NOW + 5)).as("the hop of a record that arrived alone").isTrue();
        input(NOW + 6, NOW + 6);
        assertThat(hop(NOW + 12)).as("the hop of a record 6 ms after another").isFalse();
    }

    @Test
    void shouldIgnoreTimestampsFarFromTheGatesClock() {
        input(NOW, NOW);
        assertThat(input(NOW + 20, NOW + 20 + 5_000)).as("5 s ahead of the gate's clock").isFalse();
        assertThat(input(NOW + 40, NOW + 40 - 60_000)).as("a backlog record a minute old").isFalse();
        assertThat(hop(NOW + 45)).as("its hop").isFalse();
        assertThat(input(NOW + 60, NOW + 60)).as("the far timestamp did not move the latest one").isTrue();
    }

    @Test
    void shouldAskAtMostOncePerQuarterOfTheGapWhateverTheTimestamps() {
        assertThat(input(NOW, NOW)).isTrue();
        // forged timestamps 100 ms apart, all inside the window, read 1 ms apart on the wall clock
        assertThat(input(NOW + 1, NOW + 100)).isFalse();
        assertThat(input(NOW + 2, NOW + 200)).isFalse();
        assertThat(input(NOW + 3, NOW + 300)).as("a quarter of the 10 ms gap after the last ask, rounded up").isTrue();
        assertThat(input(NOW + 4, NOW + 400)).isFalse();
    }

    @Test
    void shouldNeverAskWhenTurnedOff() {
        QuietCommits off = QuietCommits.after(Duration.ZERO);
        assertThat(off).isSameAs(QuietCommits.OFF);
        off.input(context, NOW);
        off.hop(context);
        assertThat(context.committed()).isFalse();
    }

    @Test
    void shouldKeepEachStreamThreadsRecordsApart() throws Exception {
        input(NOW, NOW);
        assertThat(input(NOW + 1, NOW + 1)).isFalse();
        AtomicBoolean asked = new AtomicBoolean();
        Thread other = new Thread(() -> {
            MockProcessorContext<Object, Object> its = new MockProcessorContext<>(new Properties(),
                    new TaskId(0, 1), null);
            its.setCurrentSystemTimeMs(NOW + 2);
            quiet.input(its, NOW + 2);
            asked.set(its.committed());
        });
        other.start();
        other.join();
        assertThat(asked).as("another thread's first record, 1 ms after this thread's").isTrue();
    }

    @Test
    void shouldBeToldByTheRouteOfEveryContractRecordAndByTheDecoderOfEveryHopRecord() {
        Routing routing = new Routing(1);
        MockProcessorContext<byte[], byte[]> routed = new MockProcessorContext<>(new Properties(), new TaskId(0, 0),
                null);
        routed.setCurrentSystemTimeMs(NOW);
        routed.setRecordMetadata("actiongate.proposals", 0, 1L);
        RouteProcessor route = new RouteProcessor(routing, "decode", "hop", quiet);
        route.init(routed);
        route.process(new Record<>(bytes("t-1/c-1"), bytes("v"), NOW));
        assertThat(routed.committed()).as("a proposal that arrived alone").isTrue();

        MockProcessorContext<Object, Object> decoded = new MockProcessorContext<>(new Properties(), new TaskId(0, 0),
                null);
        decoded.setCurrentSystemTimeMs(NOW + 5);
        decoded.setRecordMetadata("app-proposals-hop-repartition", 0, 1L);
        @SuppressWarnings("unchecked")
        AvroSerde<ActionProposal> serde = (AvroSerde<ActionProposal>) Topics.PROPOSALS.valueSerde();
        DecodeProcessor<ActionProposal> decoder = new DecodeProcessor<>(serde, "admit",
                Set.of("app-proposals-hop-repartition"), false, quiet);
        decoder.init(decoded);
        decoder.process(new Record<>(bytes("t-1/c-1"), bytes("not avro"), NOW));
        assertThat(decoded.committed()).as("its hop record, read back 5 ms later").isTrue();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
