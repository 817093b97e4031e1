package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.zip.CRC32;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** The routing decision: which records take the hop to their home task and which are processed where they are. */
class RoutingTest {

    private static final int PARTITIONS = 6;
    private static final Routing ROUTING = new Routing(PARTITIONS);
    private static final byte[] VALUE = {1};

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A valid action key whose murmur2 home is {@code partition}. */
    static String keyHomeAt(int partition, int partitions) {
        for (int i = 0; ; i++) {
            String key = "T-1/call-" + i;
            if (Routing.home(key, partitions) == partition) {
                return key;
            }
        }
    }

    @Test
    void shouldComputeTheHomePartitionExactlyAsJavasDefaultPartitioner() {
        for (int i = 0; i < 500; i++) {
            byte[] key = utf8("task-" + i + "/call-" + (i * 7));
            for (int n : new int[] {1, 2, 3, 12, 31}) {
                assertThat(Routing.home(key, n)).isEqualTo(BuiltInPartitioner.partitionForKey(key, n));
            }
        }
    }

    @Test
    void shouldKeepARecordOnItsHomePartitionAndSendAnyOtherOnTheHop() {
        for (int home = 0; home < PARTITIONS; home++) {
            byte[] key = utf8(keyHomeAt(home, PARTITIONS));
            for (int current = 0; current < PARTITIONS; current++) {
                assertThat(ROUTING.takesHop(key, VALUE, current)).as("home %d read by task %d", home, current)
                        .isEqualTo(home != current);
            }
        }
    }

    @Test
    void shouldSendACrc32PartitionedRecordOnTheHopOnlyWhereCrc32AndMurmur2Disagree() {
        int agree = 0;
        int disagree = 0;
        for (int i = 0; i < 200; i++) {
            byte[] key = utf8("T-9/c-" + i);
            CRC32 crc = new CRC32();
            crc.update(key);
            int librdkafka = (int) (crc.getValue() % PARTITIONS);
            boolean hop = ROUTING.takesHop(key, VALUE, librdkafka);
            assertThat(hop).isEqualTo(librdkafka != Routing.home(key, PARTITIONS));
            if (hop) {
                disagree++;
            } else {
                agree++;
            }
        }
        assertThat(agree).as("some keys land home by chance").isPositive();
        assertThat(disagree).as("most do not").isGreaterThan(agree);
    }

    @Test
    void shouldNeverHopARecordThatCannotMeetAnAction() {
        int notHome = (Routing.home(utf8("bad key"), PARTITIONS) + 1) % PARTITIONS;
        assertThat(ROUTING.takesHop(null, VALUE, notHome)).as("no key").isFalse();
        assertThat(ROUTING.takesHop(utf8("bad key"), VALUE, notHome)).as("not an action key").isFalse();
        assertThat(ROUTING.takesHop(utf8("T-1/"), VALUE, notHome)).as("empty tool call id").isFalse();
        assertThat(ROUTING.takesHop(new byte[] {(byte) 0xff, '/', 'x'}, VALUE, notHome)).as("not UTF-8").isFalse();
        String key = keyHomeAt(1, PARTITIONS);
        assertThat(ROUTING.takesHop(utf8(key), null, 0)).as("a tombstone").isFalse();
        assertThat(ROUTING.takesHop(utf8(key), VALUE, 0)).as("the same key with a value").isTrue();
    }

    @Test
    void shouldNeverHopWithOnePartition() {
        Routing one = Routing.singlePartition();
        for (int i = 0; i < 50; i++) {
            assertThat(one.takesHop(utf8("T-1/c-" + i), VALUE, 0)).isFalse();
        }
        assertThatThrownBy(() -> new Routing(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldPartitionEveryHopRecordByMurmur2OfItsKey() {
        byte[] key = utf8(keyHomeAt(4, PARTITIONS));
        assertThat(Routing.partitioner().partitions("hop", key, VALUE, null, PARTITIONS)).contains(java.util.Set.of(4));
        assertThat(Routing.objectPartitioner().partitions("hop", key, VALUE, null, PARTITIONS))
                .contains(java.util.Set.of(4));
        assertThatThrownBy(() -> Routing.objectPartitioner().partitions("hop", "not bytes", VALUE, null, PARTITIONS))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldForwardHomeRecordsToTheLocalChildAndOthersToTheHop() {
        int task = 2;
        MockProcessorContext<byte[], byte[]> context = new MockProcessorContext<>(new Properties(),
                new TaskId(0, task), null);
        RouteProcessor route = new RouteProcessor(ROUTING, "decode", "hop", GroupCommits.OFF);
        route.init(context);
        byte[] home = utf8(keyHomeAt(task, PARTITIONS));
        byte[] away = utf8(keyHomeAt(task + 1, PARTITIONS));
        context.setRecordMetadata("actiongate.proposals", task, 10L);
        route.process(new Record<>(home, VALUE, 1L));
        context.setRecordMetadata("actiongate.proposals", task, 11L);
        route.process(new Record<>(away, VALUE, 2L));
        context.setRecordMetadata("actiongate.proposals", task, 12L);
        route.process(new Record<>(utf8("not-an-action-key"), VALUE, 3L));
        route.process(new Record<>(null, VALUE, 4L));

        List<String> children = context.forwarded().stream().map(f -> f.childName().orElseThrow()).toList();
        assertThat(children).containsExactly("decode", "hop", "decode", "decode");
        assertThat(context.forwarded().get(1).record().key()).isEqualTo(away);
        assertThat(context.forwarded().get(1).record().value()).isSameAs(VALUE);
        org.apache.kafka.common.header.Headers carried = context.forwarded().get(1).record().headers();
        assertThat(new String(carried.lastHeader(Origin.TOPIC).value(), StandardCharsets.UTF_8))
                .isEqualTo("actiongate.proposals");
        assertThat(new String(carried.lastHeader(Origin.OFFSET).value(), StandardCharsets.UTF_8)).isEqualTo("11");
        assertThat(context.forwarded().get(0).record().headers().lastHeader(Origin.TOPIC)).as("no hop, no stamp")
                .isNull();
    }
}
