package io.actiongate.reconciler;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;

/** Answers lookups from a script (the last answer repeats) and fails the test if anything dispatches. */
class ScriptedLookupConnector implements Connector {

    private final String provider;
    private final Deque<LookupResult> script;
    final List<LookupRequest> lookups = new CopyOnWriteArrayList<>();
    volatile boolean dispatchCalled;

    ScriptedLookupConnector(String provider, LookupResult... answers) {
        this.provider = provider;
        this.script = new ArrayDeque<>(List.of(answers));
    }

    @Override
    public String provider() {
        return provider;
    }

    @Override
    public OperationClassifier classifier() {
        throw new UnsupportedOperationException("the reconciler never classifies");
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        dispatchCalled = true;
        throw new AssertionError("the reconciler must never dispatch");
    }

    @Override
    public synchronized LookupResult lookup(LookupRequest request) {
        lookups.add(request);
        return script.size() > 1 ? script.poll() : script.peek();
    }
}
