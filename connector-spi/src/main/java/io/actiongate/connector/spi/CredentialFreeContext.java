package io.actiongate.connector.spi;

import java.util.Map;
import java.util.Optional;

/** Settings without secrets: what a classifier is built from on a gate instance that holds no provider secret. */
record CredentialFreeContext(Map<String, String> settings) implements ConnectorContext {

    @Override
    public Optional<String> secret(String reference) {
        if (reference == null || reference.isBlank()) {
            return Optional.empty();
        }
        throw new CredentialsUnavailableException();
    }
}
