package io.actiongate.connector.spi;

/**
 * One provider adapter: its {@link OperationClassifier} (what the gate uses) plus {@link #dispatch} (the executor)
 * and {@link #lookup} (the reconciler). Instances are shared by the executor's dispatch pool and the reconciler,
 * so implementations are thread-safe. {@code classify} and {@code validate} must answer exactly as the classifier
 * the same factory builds with {@link ConnectorFactory#classifier} for the same settings.
 */
public interface Connector extends OperationClassifier, AutoCloseable {

    /**
     * Performs the effect once. Never retries by itself: the gate decides about further attempts.
     * Must not throw for provider failures; every failure maps to a {@link DispatchResult}.
     */
    DispatchResult dispatch(DispatchRequest request);

    /** Asks the provider whether the effect behind {@code request.idempotencyKey()} happened. Read-only. */
    LookupResult lookup(LookupRequest request);

    @Override
    default void close() {
    }
}
