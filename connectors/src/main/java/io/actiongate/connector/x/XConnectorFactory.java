package io.actiongate.connector.x;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.OperationClassifier;

import java.time.Clock;

/** {@code connectors.x.*}: posts to X (API v2 {@code POST /2/tweets} shape). */
public final class XConnectorFactory implements ConnectorFactory {

    public static final String PROVIDER = "x";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Connector create(ConnectorContext context) {
        return new XConnector(XSettings.from(context), Clock.systemUTC());
    }

    /** X classifies by operation alone; its settings (base URL, token, user id) are for sending only. */
    @Override
    public OperationClassifier classifier(ConnectorContext context) {
        return new XClassifier();
    }
}
