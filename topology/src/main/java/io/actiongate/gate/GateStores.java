package io.actiongate.gate;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.DecisionClaim;
import io.actiongate.gate.internal.ActionStateSerde;

/**
 * The gate's state stores: names (stable: they name the changelog topics, so renaming one loses state) and
 * builders. All are RocksDB key-value stores, logged (changelog) and cached, except the global policy store and the
 * in-memory timer index.
 */
public final class GateStores {

    /** Action key to {@link ActionState}: every action the gate holds, terminal ones for the dedupe window. */
    public static final String ACTIONS = "gate-actions";
    /**
     * Logged timers of decision ids and claims (their purge after the dedupe window), ordered by due time: key
     * {@code <19-digit due millis>|<kind>|<id>}, value the id. The punctuator range-scans only the due prefix. Action
     * timers an earlier release wrote here are drained as they fall due.
     */
    public static final String TIMERS = "gate-timers";
    /**
     * The live timers of actions (approval deadline, retry, lease), same key layout as {@link #TIMERS}: in memory,
     * not logged, rebuilt from {@link #ACTIONS} (each action's {@code timerKey}) when a task starts. Settled actions
     * have no timer: a scan purges them (see {@code TimerProcessor}).
     */
    public static final String TIMER_INDEX = "gate-timer-index";
    /** Action keys of accepted but undispatched actions, value the origin's conversation id ("" when none). */
    public static final String PENDING = "gate-pending";
    /** Decision ids already applied (single use), value the wall-clock millis of use. */
    public static final String DECISION_IDS = "gate-decision-ids";
    /**
     * Decision id to the one signed decision that claimed it ({@code DecisionClaim}, JSON). Partitioned by the
     * decision id (not the action key), so single use holds across the deployment.
     */
    public static final String DECISION_CLAIMS = "gate-decision-claims";
    /** Global store of the policy topic: policy key to the record's raw bytes (decoded on lookup). */
    public static final String POLICY = "gate-policy";

    private GateStores() {
    }

    public static StoreBuilder<KeyValueStore<String, ActionState>> actions() {
        return Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(ACTIONS), Serdes.String(),
                new ActionStateSerde()).withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<String, String>> timers() {
        return Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(TIMERS), Serdes.String(),
                Serdes.String()).withCachingEnabled();
    }

    /** In memory and unlogged: it costs no changelog record, and the action store holds what rebuilds it. */
    public static StoreBuilder<KeyValueStore<String, String>> timerIndex() {
        return Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(TIMER_INDEX), Serdes.String(),
                Serdes.String()).withLoggingDisabled();
    }

    public static StoreBuilder<KeyValueStore<String, String>> pending() {
        return Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(PENDING), Serdes.String(),
                Serdes.String()).withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<String, Long>> decisionIds() {
        return Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(DECISION_IDS), Serdes.String(),
                Serdes.Long()).withCachingEnabled();
    }

    public static StoreBuilder<KeyValueStore<String, DecisionClaim>> decisionClaims() {
        return Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(DECISION_CLAIMS), Serdes.String(),
                DecisionClaim.serde()).withCachingEnabled();
    }

    /** Global stores are restored from their source topic, so no changelog. */
    public static StoreBuilder<KeyValueStore<String, byte[]>> policy() {
        return Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(POLICY), Serdes.String(),
                Serdes.ByteArray()).withLoggingDisabled();
    }
}
