package io.actiongate.connector.webhook;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.OperationClassifier;

import java.time.Clock;

/** {@code connectors.webhook.*}: the generic provider protocol of docs/contract.md section 6. */
public final class WebhookConnectorFactory implements ConnectorFactory {

    public static final String PROVIDER = "webhook";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Connector create(ConnectorContext context) {
        return new WebhookConnector(WebhookSettings.from(context), Clock.systemUTC());
    }

    @Override
    public OperationClassifier classifier(ConnectorContext context) {
        return WebhookClassifier.from(context);
    }
}
