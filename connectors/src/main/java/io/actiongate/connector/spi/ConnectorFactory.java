package io.actiongate.connector.spi;

/** The {@link java.util.ServiceLoader} entry point of a connector. */
public interface ConnectorFactory {

    /** The provider name this factory serves, e.g. {@code smtp}. */
    String provider();

    /** Builds the connector from its configuration; throws {@link IllegalArgumentException} on bad settings. */
    Connector create(ConnectorContext context);
}
