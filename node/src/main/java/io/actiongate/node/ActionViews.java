package io.actiongate.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.gate.internal.ActionState;
import io.actiongate.gate.internal.StateRecords;
import io.actiongate.http.AvroJson;

/**
 * The JSON an operator or approval UI sees for one action: the receipt the gate would publish now, plus the
 * plain-language summary an approver reads and the time of the next timer. Never the input body.
 */
public final class ActionViews {

    private ActionViews() {
    }

    public static JsonNode view(ActionState state) {
        ObjectNode node = AvroJson.toJson(StateRecords.receipt(state));
        node.put("phase", state.phase().name());
        if (state.action() != null && state.action().summary() != null) {
            node.put("summary", state.action().summary());
        }
        if (state.dueAt() != null) {
            node.put("next_timer_at", java.time.Instant.ofEpochMilli(state.dueAt()).toString());
        }
        return node;
    }
}
