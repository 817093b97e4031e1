package io.actiongate.gate;

import java.time.Instant;
import java.util.Objects;

import io.actiongate.avro.Receipt;
import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.StateRecords;

/**
 * The public read model of one action the gate holds: what the node's HTTP API, the tools and the benchmark may see
 * of the gate's state, without its internal model ({@code gate.internal}, which changes with the gate).
 *
 * @param receipt     the receipt the gate would publish for the action now (ids, digests, status, attempts; never
 *                    the input body)
 * @param phase       where the action is in the lifecycle: the receipt status, or {@code RETRY_WAIT} for an approved
 *                    action waiting for its next attempt's {@code retry_at} (docs/contract.md, "Lifecycle")
 * @param summary     the plain-language summary an approver reads, or null
 * @param nextTimerAt when the action's live timer fires (approval deadline, retry, lease plus grace, purge), or null
 */
public record ActionView(Receipt receipt, String phase, String summary, Instant nextTimerAt) {

    public ActionView {
        Objects.requireNonNull(receipt, "receipt");
        Objects.requireNonNull(phase, "phase");
    }

    /**
     * The view of a value of the {@link GateStores#ACTIONS} store, as an interactive query returns it.
     *
     * @throws IllegalArgumentException when {@code storeValue} is not a value of that store
     */
    public static ActionView ofStoreValue(Object storeValue) {
        if (!(storeValue instanceof ActionState state)) {
            throw new IllegalArgumentException("not a value of the " + GateStores.ACTIONS + " store: "
                    + (storeValue == null ? "null" : storeValue.getClass().getName()));
        }
        String summary = state.action() == null ? null : state.action().summary();
        Instant nextTimerAt = state.dueAt() == null ? null : Instant.ofEpochMilli(state.dueAt());
        return new ActionView(StateRecords.receipt(state), state.phase().name(), summary, nextTimerAt);
    }
}
