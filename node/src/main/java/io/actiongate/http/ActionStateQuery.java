package io.actiongate.http;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Answers "what is the state of this action" for the HTTP surface: where the key lives ({@link #route}) and, when
 * it lives here, its JSON view ({@link #localState}). The view never holds an input body.
 */
public interface ActionStateQuery {

    /** Which instance holds the active copy of {@code actionKey}'s state. */
    Route route(String actionKey);

    /**
     * The JSON view of the action held by this instance, empty when this instance does not know it.
     *
     * @throws StateUnavailableException when the store cannot be read right now (rebalancing, starting)
     */
    Optional<JsonNode> localState(String actionKey);

    /** Where a key's state lives. */
    sealed interface Route permits Local, Remote, Unavailable {
    }

    /** On this instance. */
    record Local() implements Route {
    }

    /** On another instance, reachable at {@code http://host:port}. */
    record Remote(String host, int port) implements Route {
    }

    /** Nobody can answer now (rebalancing, not started). */
    record Unavailable(String why) implements Route {
    }
}
