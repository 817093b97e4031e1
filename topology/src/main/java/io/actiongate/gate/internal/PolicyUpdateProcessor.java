package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.digest.Digests;
import io.actiongate.gate.GateStores;
import io.actiongate.policy.PolicyChanges;
import io.actiongate.policy.PolicyLookup;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/**
 * Keeps the global policy store: raw bytes by policy key, a tombstone deletes. The store holds the topic's
 * bytes unchanged (a global store restores by copying the topic), so lookups decode them ({@link PolicyLookup}).
 * Every write invalidates that key in the gate's shared policy snapshot ({@link PolicyChanges}); (re)initialising
 * the processor, which follows a (re)initialised store, empties it.
 * A record that does not decode is not stored; it is logged by hash because a global processor has no
 * downstream to the dead-letter topic, and the key then reads as absent (fail closed).
 */
public final class PolicyUpdateProcessor implements Processor<byte[], byte[], Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyUpdateProcessor.class);

    private final AvroSerde<PolicyRecord> serde = AvroSerdes.serde(PolicyRecord.class);
    private final PolicyChanges changes;
    private KeyValueStore<String, byte[]> store;

    public PolicyUpdateProcessor() {
        this(PolicyChanges.uncached());
    }

    public PolicyUpdateProcessor(PolicyChanges changes) {
        this.changes = changes;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.store = context.getStateStore(GateStores.POLICY);
        changes.reset();
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (record.key() == null) {
            LOG.warn("policy record without a key ignored");
            return;
        }
        String key = new String(record.key(), StandardCharsets.UTF_8);
        if (record.value() == null) {
            store.delete(key);
            changes.changed(key);
            return;
        }
        try {
            serde.deserialize(null, record.value());
        } catch (RuntimeException e) {
            LOG.warn("policy record {} does not decode ({}; sha256 {}, {} bytes); the key reads as absent", key,
                    e.getClass().getSimpleName(), Digests.sha256Hex(record.value()), record.value().length);
            store.delete(key);
            changes.changed(key);
            return;
        }
        store.put(key, record.value());
        changes.changed(key);
    }
}
