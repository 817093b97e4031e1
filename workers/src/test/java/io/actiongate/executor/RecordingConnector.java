package io.actiongate.executor;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;

/** A connector that records dispatches into a shared event log and answers with a programmable function. */
final class RecordingConnector implements Connector {

    private final String provider;
    private final List<String> events;
    private final Function<DispatchRequest, DispatchResult> behaviour;
    final List<DispatchRequest> dispatched = new CopyOnWriteArrayList<>();

    RecordingConnector(String provider, List<String> events, Function<DispatchRequest, DispatchResult> behaviour) {
        this.provider = provider;
        this.events = events;
        this.behaviour = behaviour;
    }

    @Override
    public String provider() {
        return provider;
    }

    @Override
    public OperationClassifier classifier() {
        throw new UnsupportedOperationException("the executor never classifies");
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        events.add("dispatch:" + request.idempotencyKey());
        dispatched.add(request);
        return behaviour.apply(request);
    }

    @Override
    public LookupResult lookup(LookupRequest request) {
        throw new UnsupportedOperationException("the executor never looks up");
    }
}
