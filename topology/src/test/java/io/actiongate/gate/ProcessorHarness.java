package io.actiongate.gate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.ActionStateSerde;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/**
 * Test fixture: the gate's stores (in memory) in a {@link MockProcessorContext}, with a policy store that counts
 * its reads and can change under a processor between two reads (as a global store update can).
 */
final class ProcessorHarness {

    final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    final KeyValueStore<String, ActionState> actions = store(GateStores.ACTIONS, new ActionStateSerde());
    final KeyValueStore<String, String> timers = store(GateStores.TIMERS, Serdes.String());
    final KeyValueStore<String, String> timerIndex = store(GateStores.TIMER_INDEX, Serdes.String());
    final KeyValueStore<String, String> pending = store(GateStores.PENDING, Serdes.String());
    final KeyValueStore<String, Long> decisionIds = store(GateStores.DECISION_IDS, Serdes.Long());
    final ScriptedPolicyStore policy = new ScriptedPolicyStore();

    ProcessorHarness() {
        context.setCurrentSystemTimeMs(GateDriver.START.toEpochMilli());
        context.setRecordMetadata("actiongate.proposals", 0, 42L);
        context.addStateStore(policy);
    }

    private <V> KeyValueStore<String, V> store(String name, org.apache.kafka.common.serialization.Serde<V> values) {
        KeyValueStore<String, V> store = org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        return store;
    }

    /** The demo policy of {@link GateDriver#demoPolicy()}, written straight into the policy store. */
    ProcessorHarness demoPolicy() {
        GateDriver.demoPolicyRecords().forEach(policy::put);
        return this;
    }

    static long count(KeyValueStore<String, ?> store) {
        long n = 0;
        try (KeyValueIterator<String, ?> it = store.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    /** A policy store over a map: counts reads per key and runs a hook after each read. */
    static final class ScriptedPolicyStore implements KeyValueStore<String, byte[]> {

        private static final AvroSerde<PolicyRecord> SERDE = AvroSerdes.serde(PolicyRecord.class);

        final Map<String, byte[]> values = new HashMap<>();
        final Map<String, Integer> reads = new HashMap<>();
        /** Called with (key, this) after every read: a policy update landing between two reads. */
        BiConsumer<String, ScriptedPolicyStore> afterRead = (k, s) -> { };

        void put(String key, PolicyRecord record) {
            values.put(key, SERDE.serialize(null, record));
        }

        @Override
        public byte[] get(String key) {
            byte[] v = values.get(key);
            reads.merge(key, 1, Integer::sum);
            afterRead.accept(key, this);
            return v;
        }

        @Override
        public void put(String key, byte[] value) {
            values.put(key, value);
        }

        @Override
        public byte[] putIfAbsent(String key, byte[] value) {
            return values.putIfAbsent(key, value);
        }

        @Override
        public void putAll(List<KeyValue<String, byte[]>> entries) {
            entries.forEach(e -> values.put(e.key, e.value));
        }

        @Override
        public byte[] delete(String key) {
            return values.remove(key);
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
            return values.size();
        }

        @Override
        public String name() {
            return GateStores.POLICY;
        }

        @Override
        public void init(StateStoreContext stateStoreContext, StateStore root) {
        }

        @Override
        public void close() {
        }

        @Override
        public boolean persistent() {
            return false;
        }

        @Override
        public boolean isOpen() {
            return true;
        }
    }
}
