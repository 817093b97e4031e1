package io.actiongate.loadtest.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.loadtest.report.RecordCounts;


class SkeletonBenchTest {

    @TempDir
    Path dir;

    @Test
    void shouldWriteTheGatesReadOnlyRecordMixPerActionWithoutLookingAtTheValues() throws Exception {
        SkeletonBench.Sizes sizes = new SkeletonBench.Sizes(300, 283, 414, 159);
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "skeleton-test");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(dir.resolve("state")).toString());
        try (TopologyTestDriver driver = new TopologyTestDriver(SkeletonBench.topology("x.", sizes), p)) {
            TestInputTopic<String, byte[]> proposals = driver.createInputTopic("x.proposals",
                    Serdes.String().serializer(), Serdes.ByteArray().serializer());
            TestInputTopic<String, byte[]> outcomes = driver.createInputTopic("x.outcomes",
                    Serdes.String().serializer(), Serdes.ByteArray().serializer());
            TestOutputTopic<String, byte[]> receipts = driver.createOutputTopic("x.receipts",
                    Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            TestOutputTopic<String, byte[]> attempts = driver.createOutputTopic("x.attempts",
                    Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            KeyValueStore<String, String> timers = driver.getKeyValueStore(SkeletonBench.TIMER_INDEX);
            KeyValueStore<String, byte[]> actions = driver.getKeyValueStore(SkeletonBench.ACTIONS_STORE);

            proposals.pipeInput("T/c-1", new byte[] {1, 2, 3}); // not Avro: the skeleton decodes nothing
            List<KeyValue<String, byte[]>> proposed = receipts.readKeyValuesToList();
            assertThat(proposed).extracting(kv -> (char) kv.value[0]).containsExactly('D');
            assertThat(proposed.get(0).value).hasSize(283 - "T/c-1".length());
            List<KeyValue<String, byte[]>> reserved = attempts.readKeyValuesToList();
            assertThat(reserved).singleElement().satisfies(kv -> {
                assertThat(kv.key).isEqualTo("T/c-1");
                assertThat(kv.value).hasSize(414 - "T/c-1".length());
            });
            assertThat(timers.get("lease|T/c-1")).isNotNull();
            int actionEntries = changelog(driver).size();

            outcomes.pipeInput("T/c-1", new byte[] {9});
            List<KeyValue<String, byte[]>> settled = receipts.readKeyValuesToList();
            assertThat(settled).singleElement()
                    .satisfies(kv -> assertThat(kv.value[0]).isEqualTo(SkeletonBench.SUCCEEDED));
            assertThat(attempts.isEmpty()).isTrue();
            assertThat(timers.get("lease|T/c-1")).isNull();
            assertThat(actions.get("T/c-1")[0]).isEqualTo(SkeletonBench.SUCCEEDED);
            assertThat(actions.get("T/c-1")).hasSize(300 - "T/c-1".length());
            actionEntries += changelog(driver).size();

            // the gate's mix, as its RecordsPerActionTest pins it: nothing else is written, no timer changelog
            ReadOnlyRecordMix mix = ReadOnlyRecordMix.CURRENT;
            assertThat(SkeletonBench.MIX).isSameAs(mix);
            assertThat(proposed.size() + settled.size()).isEqualTo(mix.receipts());
            assertThat(reserved).hasSize(mix.reservations());
            assertThat(actionEntries).isEqualTo(mix.actionChangelog());
            assertThat(driver.producedTopicNames()).containsExactlyInAnyOrder("x.receipts", "x.attempts",
                    ACTIONS_CHANGELOG);
            assertThat(mix.timerChangelog()).isZero();
            assertThat(proposed.size() + settled.size() + reserved.size() + actionEntries + 1 /* the outcome */)
                    .isEqualTo(mix.total());
        }
    }

    private static final String ACTIONS_CHANGELOG = "skeleton-test-" + SkeletonBench.ACTIONS_STORE + "-changelog";

    /** Entries written to the action store's changelog since the last call. */
    private static List<KeyValue<byte[], byte[]>> changelog(TopologyTestDriver driver) {
        return driver.createOutputTopic(ACTIONS_CHANGELOG, Serdes.ByteArray().deserializer(),
                Serdes.ByteArray().deserializer()).readKeyValuesToList();
    }

    @Test
    void shouldTakeRowFsValueSizesFromItsBudget() {
        RecordCounts.Budget none = null;
        assertThat(SkeletonBench.Sizes.of(none)).isEqualTo(SkeletonBench.Sizes.DEFAULT);
    }
}
