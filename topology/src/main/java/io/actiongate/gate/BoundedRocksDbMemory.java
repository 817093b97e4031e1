package io.actiongate.gate;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the off-heap memory of every RocksDB store of this process ({@code gate.rocksdb.memory.bytes}): one LRU block
 * cache of that capacity shared by all stores, with index and filter blocks held in it, and the memtables charged to
 * it through one write buffer manager (at most half of it). Without it each store instance gets Kafka Streams' own
 * defaults (a 50 MiB block cache and up to three 16 MiB memtables), so the resident memory grows with partitions
 * times stores. Set through {@link GateStreams#properties} when {@code gate.rocksdb.memory.bytes} is above 0; the
 * first store opened fixes the size for the process (there is one gate per process).
 */
public final class BoundedRocksDbMemory implements RocksDBConfigSetter {

    /** The Kafka Streams property carrying the bound, in bytes. */
    public static final String TOTAL_BYTES_CONFIG = "actiongate.rocksdb.memory.bytes";
    /** Share of the cache reserved for index and filter blocks (high priority). */
    static final double INDEX_FILTER_RATIO = 0.1;
    /** Largest memtable of one store; smaller when the bound is small. */
    static final long MAX_MEMTABLE_BYTES = 16L * 1024 * 1024;

    private static Cache cache;
    private static WriteBufferManager writeBufferManager;
    private static long totalBytes;

    /** The bound in force in this process (0 before the first store opened). */
    static synchronized long totalBytes() {
        return totalBytes;
    }

    private static synchronized void init(long bytes) {
        if (cache == null) {
            totalBytes = bytes;
            cache = new LRUCache(bytes, -1, false, INDEX_FILTER_RATIO);
            writeBufferManager = new WriteBufferManager(bytes / 2, cache);
        }
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object value = configs.get(TOTAL_BYTES_CONFIG);
        long bytes = value == null ? 0 : Long.parseLong(value.toString());
        if (bytes <= 0) {
            return; // Kafka Streams' per-store defaults
        }
        init(bytes);
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(writeBufferManager);
        options.setWriteBufferSize(Math.min(MAX_MEMTABLE_BYTES, Math.max(1024 * 1024, bytes / 16)));
        options.setMaxWriteBufferNumber(2);
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(String storeName, Options options) {
        // the cache and the write buffer manager are shared by every store of the process: never closed here
    }
}
