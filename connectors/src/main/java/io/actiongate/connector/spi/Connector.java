package io.actiongate.connector.spi;

/**
 * One provider adapter. Instances are shared by the executor's dispatch pool and the reconciler,
 * so implementations are thread-safe.
 */
public interface Connector extends AutoCloseable {

    /** The provider name that proposals and reservations carry, e.g. {@code webhook}. */
    String provider();

    /**
     * Says whether {@code operation} with {@code inputJson} only reads or has an effect. Fails closed:
     * an operation the connector does not recognise is {@link Classification.Kind#UNSUPPORTED}, never READ.
     */
    Classification classify(String operation, String inputJson);

    /** Checks the input against the connector's bounds before anything is reserved. Pure; never calls out. */
    Validation validate(String operation, String inputJson);

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
