package io.actiongate.policy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** A policy store in memory that counts its reads. */
final class CountingStore implements ReadOnlyKeyValueStore<String, byte[]> {

    final Map<String, byte[]> data = new ConcurrentHashMap<>();
    final AtomicInteger reads = new AtomicInteger();
    /** Runs inside {@link #get}, after the value was read: a policy update racing the reader. */
    volatile Runnable afterRead = () -> { };

    @Override
    public byte[] get(String key) {
        reads.incrementAndGet();
        byte[] value = data.get(key);
        afterRead.run();
        return value;
    }

    @Override
    public KeyValueIterator<String, byte[]> range(String from, String to) {
        throw new UnsupportedOperationException();
    }

    @Override
    public KeyValueIterator<String, byte[]> all() {
        throw new UnsupportedOperationException();
    }

    @Override
    public long approximateNumEntries() {
        return data.size();
    }
}
