package io.actiongate.connector.cli;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;

/** {@code connectors.cli.*}: classifies {@code kubectl} and {@code gh} argument vectors. No settings yet. */
public final class CliConnectorFactory implements ConnectorFactory {

    public static final String PROVIDER = "cli";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Connector create(ConnectorContext context) {
        return new CliConnector();
    }
}
