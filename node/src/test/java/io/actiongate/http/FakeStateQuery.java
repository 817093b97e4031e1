package io.actiongate.http;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

/** An {@link ActionStateQuery} with a fixed routing function and an in-memory local store. */
final class FakeStateQuery implements ActionStateQuery {

    final Map<String, JsonNode> local = new ConcurrentHashMap<>();
    volatile Function<String, Route> routing = key -> new Local();
    volatile boolean storeUnavailable;

    @Override
    public Route route(String actionKey) {
        return routing.apply(actionKey);
    }

    @Override
    public Optional<JsonNode> localState(String actionKey) {
        if (storeUnavailable) {
            throw new StateUnavailableException("rebalancing", null);
        }
        return Optional.ofNullable(local.get(actionKey));
    }
}
