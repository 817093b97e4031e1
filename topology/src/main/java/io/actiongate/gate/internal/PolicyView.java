package io.actiongate.gate.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import java.util.Optional;

import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.Integration;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/**
 * Typed lookups in the global policy store. A record that is missing, does not decode or holds another kind of
 * body is reported as absent: absent evidence fails closed.
 */
public final class PolicyView {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyView.class);

    private final ReadOnlyKeyValueStore<String, byte[]> store;
    private static final int CACHE_ENTRIES = 4096;

    private final AvroSerde<PolicyRecord> serde = AvroSerdes.serde(PolicyRecord.class);
    /**
     * Decoded records by key, reused while the stored bytes stay the same: admission and every recheck look up
     * five to seven policy records, and comparing a few hundred bytes is far cheaper than decoding them again.
     * One view belongs to one processor, so one stream thread: no locking.
     */
    private final Map<String, Decoded> decoded = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Decoded> eldest) {
            return size() > CACHE_ENTRIES;
        }
    };

    private record Decoded(byte[] raw, PolicyRecord record) {
    }

    private final String defaultOrg;

    public PolicyView(ReadOnlyKeyValueStore<String, byte[]> store) {
        this(store, null);
    }

    /** {@code defaultOrg}: the owner of tasks and origins written without org_id (gate.task.default.org), or null. */
    public PolicyView(ReadOnlyKeyValueStore<String, byte[]> store, String defaultOrg) {
        this.store = store;
        this.defaultOrg = defaultOrg;
    }

    public static String toolKey(String provider, String toolName) {
        return "tool:" + provider + ":" + toolName;
    }

    public static String integrationKey(String org, String provider) {
        return "integration:" + org + ":" + provider;
    }

    public static String grantKey(String org, String profile) {
        return "grant:" + org + ":" + profile;
    }

    public static String epochKey(String org) {
        return "epoch:" + org;
    }

    public static String taskKey(String taskId) {
        return "task:" + taskId;
    }

    public static String originKey(String conversationId) {
        return "origin:" + conversationId;
    }

    /** Every record {@code a} depends on, each read exactly once: decide a record on this, not on lookups. */
    public PolicySnapshot snapshot(ActionState.Action a) {
        return new PolicySnapshot(tool(a.provider(), a.toolName()), integration(a.orgId(), a.provider()),
                grant(a.orgId(), a.profileId()), task(a.taskId()), origin(a.conversationId()), epoch(a.orgId()),
                defaultOrg);
    }

    public Optional<ToolDescriptor> tool(String provider, String toolName) {
        return body(toolKey(provider, toolName), ToolDescriptor.class);
    }

    public Optional<Integration> integration(String org, String provider) {
        return body(integrationKey(org, provider), Integration.class);
    }

    public Optional<Grant> grant(String org, String profile) {
        return body(grantKey(org, profile), Grant.class);
    }

    public Optional<AuthorizationEpoch> epoch(String org) {
        return body(epochKey(org), AuthorizationEpoch.class);
    }

    public Optional<TaskState> task(String taskId) {
        return body(taskKey(taskId), TaskState.class);
    }

    public Optional<OriginState> origin(String conversationId) {
        return conversationId == null ? Optional.empty() : body(originKey(conversationId), OriginState.class);
    }

    private <T> Optional<T> body(String key, Class<T> type) {
        byte[] raw = store.get(key);
        if (raw == null) {
            return Optional.empty();
        }
        try {
            Decoded hit = decoded.get(key);
            PolicyRecord record;
            if (hit != null && Arrays.equals(hit.raw(), raw)) {
                record = hit.record();
            } else {
                record = serde.deserialize(null, raw);
                decoded.put(key, new Decoded(raw, record));
            }
            return type.isInstance(record.getBody()) ? Optional.of(type.cast(record.getBody())) : Optional.empty();
        } catch (RuntimeException e) {
            LOG.warn("policy record {} does not decode ({}); treated as absent", key, e.getClass().getSimpleName());
            return Optional.empty();
        }
    }
}
