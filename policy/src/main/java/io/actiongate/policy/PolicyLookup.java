package io.actiongate.policy;

import java.util.Optional;

import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/**
 * Typed lookups in the gate's global policy store (raw {@link PolicyRecord} bytes by {@link PolicyKey}). A record
 * that is missing, does not decode or holds another kind of body is reported as absent: absent evidence fails closed.
 *
 * <p>Decoded records come from the in-memory snapshot {@link PolicyChanges} shared by every lookup of the gate and
 * invalidated by the policy topic's updates, so a check reads the store only for a key that changed since it was
 * last read. One lookup belongs to one processor (one stream thread); the snapshot is thread-safe.
 */
public final class PolicyLookup implements PolicyBodies {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyLookup.class);

    private final ReadOnlyKeyValueStore<String, byte[]> store;
    private final String defaultOrg;
    private final PolicyChanges snapshot;
    private final AvroSerde<PolicyRecord> serde = AvroSerdes.serde(PolicyRecord.class);

    /**
     * {@code defaultOrg}: the owner of tasks and origins written without org_id ({@code gate.task.default.org}), or
     * null; {@code snapshot}: the shared decoded records, {@link PolicyChanges#uncached()} to read the store each time.
     */
    public PolicyLookup(ReadOnlyKeyValueStore<String, byte[]> store, String defaultOrg, PolicyChanges snapshot) {
        this.store = store;
        this.defaultOrg = defaultOrg;
        this.snapshot = snapshot;
    }

    @Override
    public String defaultOrg() {
        return defaultOrg;
    }

    @Override
    public <T> Optional<T> body(String key, Class<T> type) {
        Object body;
        if (!snapshot.caching()) {
            body = read(key);
        } else {
            PolicyChanges.Entry seen = snapshot.begin(key);
            if (seen instanceof PolicyChanges.Loaded loaded) {
                body = loaded.body();
            } else {
                body = read(key);
                snapshot.complete(key, seen, new PolicyChanges.Loaded(body));
            }
        }
        return type.isInstance(body) ? Optional.of(type.cast(body)) : Optional.empty();
    }

    /** The decoded body stored under {@code key}, or null when absent or undecodable. */
    private Object read(String key) {
        byte[] raw = store.get(key);
        if (raw == null) {
            return null;
        }
        try {
            return serde.deserialize(null, raw).getBody();
        } catch (RuntimeException e) {
            LOG.warn("policy record {} does not decode ({}); treated as absent", key, e.getClass().getSimpleName());
            return null;
        }
    }
}
