package io.actiongate.node;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.http.ActionStateQuery;
import io.actiongate.http.StateUnavailableException;

/**
 * The HTTP surface binds before the gate exists (the gate must know the bound port for {@code application.server}),
 * so it starts with this query and the gate's query is plugged in afterwards. Without a gate role it stays
 * unavailable and the action endpoint answers 503.
 */
final class DeferredActionStateQuery implements ActionStateQuery {

    private volatile ActionStateQuery delegate;

    void set(ActionStateQuery query) {
        this.delegate = query;
    }

    @Override
    public Route route(String actionKey) {
        ActionStateQuery d = delegate;
        return d == null ? new Unavailable("this instance runs no gate role") : d.route(actionKey);
    }

    @Override
    public Optional<JsonNode> localState(String actionKey) {
        ActionStateQuery d = delegate;
        if (d == null) {
            throw new StateUnavailableException("this instance runs no gate role", null);
        }
        return d.localState(actionKey);
    }
}
