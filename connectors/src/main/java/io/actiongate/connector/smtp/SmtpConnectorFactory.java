package io.actiongate.connector.smtp;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.OperationClassifier;

import java.time.Clock;

/** {@code connectors.smtp.*}: one plain-text email to one allow-listed recipient per action. */
public final class SmtpConnectorFactory implements ConnectorFactory {

    public static final String PROVIDER = "smtp";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Connector create(ConnectorContext context) {
        return new SmtpConnector(SmtpSettings.from(context), Clock.systemUTC());
    }

    @Override
    public OperationClassifier classifier(ConnectorContext context) {
        return SmtpClassifier.from(context);
    }
}
