package io.actiongate.connector.spi;

/**
 * Thrown by the context a classifier is built with when it asks for a secret: a classifier must be buildable on a
 * gate instance that holds no provider credential (see {@link ConnectorFactory#classifier}).
 */
public final class CredentialsUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public CredentialsUnavailableException() {
        super("a classifier is built without credentials; it must not read a secret "
                + "(override ConnectorFactory.classifier so it does not)");
    }
}
