package io.actiongate.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.gate.ActionView;
import io.actiongate.http.AvroJson;

/**
 * The JSON an operator or approval UI sees for one action: the receipt the gate would publish now, plus the
 * plain-language summary an approver reads and the time of the next timer. Never the input body.
 */
public final class ActionViews {

    private ActionViews() {
    }

    /** The JSON of a value of the gate's actions store, as the node's interactive query reads it. */
    public static JsonNode ofStoreValue(Object storeValue) {
        return view(ActionView.ofStoreValue(storeValue));
    }

    public static JsonNode view(ActionView action) {
        ObjectNode node = AvroJson.toJson(action.receipt());
        node.put("phase", action.phase());
        if (action.summary() != null) {
            node.put("summary", action.summary());
        }
        if (action.nextTimerAt() != null) {
            node.put("next_timer_at", action.nextTimerAt().toString());
        }
        return node;
    }
}
