package io.actiongate.connector.spi;

/** The {@link java.util.ServiceLoader} entry point of a connector. */
@Incubating
public interface ConnectorFactory {

    /** The provider name this factory serves, e.g. {@code smtp}. */
    String provider();

    /**
     * Builds the full connector from its configuration, resolving its credentials; throws
     * {@link IllegalArgumentException} on bad settings or a credential reference that cannot be read.
     */
    Connector create(ConnectorContext context);

    /**
     * Builds only the classifier, from the same settings, for a gate instance that holds no provider secret. Must not
     * resolve a credential, open a connection or start a thread: {@link ConnectorRegistry#classifiers} hands in a
     * context whose {@link ConnectorContext#secret} throws, so a classifier that tries fails loading, naming the
     * provider. Throws {@link IllegalArgumentException} on bad classification settings.
     *
     * <p>The default builds the full connector with that credential-free context, which works only for a connector
     * that needs no credential to be built; a connector that reads one must override this.
     */
    default OperationClassifier classifier(ConnectorContext context) {
        return create(context).classifier();
    }
}
