package io.actiongate.connector.spi;

/**
 * One provider adapter: it has an {@link OperationClassifier} (what the gate uses, {@link #classifier()}) and does
 * {@link #dispatch} (the executor) and {@link #lookup} (the reconciler). Instances are shared by the executor's
 * dispatch pool and the reconciler, so implementations are thread-safe. Its classifier must answer exactly as the one
 * the same factory builds with {@link ConnectorFactory#classifier} for the same settings.
 */
@Incubating
public interface Connector extends AutoCloseable {

    /** The provider name that proposals and reservations carry, e.g. {@code webhook}; its classifier's too. */
    String provider();

    /** The pure half of this connector: how it classifies and validates an operation and its input. */
    OperationClassifier classifier();

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
