package io.actiongate.connector.cli;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.OperationClassifier;

/**
 * {@code connectors.cli.*}: classifies {@code kubectl} and {@code gh} argument vectors and runs the approved ones
 * from the configured binaries. The classifier needs no setting; the settings are checked either way, so a gate and
 * an executor given the same configuration accept or refuse it alike.
 */
public final class CliConnectorFactory implements ConnectorFactory {

    public static final String PROVIDER = "cli";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Connector create(ConnectorContext context) {
        return new CliConnector(CliSettings.from(context, true));
    }

    @Override
    public OperationClassifier classifier(ConnectorContext context) {
        CliSettings.from(context, false);
        return new CliClassifier();
    }
}
