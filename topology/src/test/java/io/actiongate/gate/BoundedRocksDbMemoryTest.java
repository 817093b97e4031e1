package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class BoundedRocksDbMemoryTest {

    private static final long BOUND = 64L * 1024 * 1024;

    @Test
    void shouldLeaveKafkaStreamsDefaultsWhenNoBoundIsSet() {
        Properties p = GateStreams.properties(GateConfig.fromStrings(Map.of()));
        assertThat(p).doesNotContainKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)
                .doesNotContainKey(BoundedRocksDbMemory.TOTAL_BYTES_CONFIG);
        assertThat(GateConfig.fromStrings(Map.of()).rocksDbMemoryBytes()).isZero();
    }

    @Test
    void shouldInstallTheBoundedSetterWhenABoundIsSet() {
        GateConfig c = GateConfig.fromStrings(Map.of(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, Long.toString(BOUND)));
        Properties p = GateStreams.properties(c);
        assertThat(p.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)).isEqualTo(BoundedRocksDbMemory.class);
        assertThat(p.get(BoundedRocksDbMemory.TOTAL_BYTES_CONFIG)).isEqualTo(Long.toString(BOUND));
        assertThat(c.unrecognizedKeys()).isEmpty();
    }

    @Test
    void shouldKeepAnOperatorsOwnSetter() {
        GateConfig c = GateConfig.fromStrings(Map.of(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, Long.toString(BOUND),
                GateConfig.STREAMS_PREFIX + StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.Own"));
        assertThat(GateStreams.properties(c).get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG))
                .isEqualTo("com.example.Own");
    }

    @Test
    void shouldRejectANegativeBound() {
        assertThatThrownBy(() -> GateConfig.fromStrings(Map.of(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, "-1")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void shouldShareOneCacheAndCapTheMemtablesOfEveryStore() {
        RocksDB.loadLibrary();
        Map<String, Object> configs = Map.of(BoundedRocksDbMemory.TOTAL_BYTES_CONFIG, Long.toString(BOUND));
        BoundedRocksDbMemory setter = new BoundedRocksDbMemory();
        try (Options a = new Options(); Options b = new Options()) {
            a.setTableFormatConfig(new BlockBasedTableConfig());
            b.setTableFormatConfig(new BlockBasedTableConfig());
            setter.setConfig("gate-actions", a, configs);
            setter.setConfig("gate-timers", b, configs);

            assertThat(BoundedRocksDbMemory.totalBytes()).isEqualTo(BOUND);
            for (Options o : new Options[] {a, b}) {
                assertThat(o.writeBufferSize()).isEqualTo(BOUND / 16);
                assertThat(o.maxWriteBufferNumber()).isEqualTo(2);
                BlockBasedTableConfig table = (BlockBasedTableConfig) o.tableFormatConfig();
                assertThat(table.cacheIndexAndFilterBlocks()).isTrue();
                assertThat(table.cacheIndexAndFilterBlocksWithHighPriority()).isTrue();
            }
            setter.close("gate-actions", a);
            setter.close("gate-timers", b);
        }
    }

    @Test
    void shouldLeaveAStoreAloneWithoutABound() {
        RocksDB.loadLibrary();
        try (Options o = new Options()) {
            o.setTableFormatConfig(new BlockBasedTableConfig());
            long before = o.writeBufferSize();
            new BoundedRocksDbMemory().setConfig("gate-actions", o, Map.of());
            assertThat(o.writeBufferSize()).isEqualTo(before);
            assertThat(((BlockBasedTableConfig) o.tableFormatConfig()).cacheIndexAndFilterBlocks()).isFalse();
        }
    }
}
