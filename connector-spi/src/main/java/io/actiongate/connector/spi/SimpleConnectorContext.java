package io.actiongate.connector.spi;

import java.util.Map;
import java.util.Optional;

import io.actiongate.secrets.SecretReference;

/** Settings from a map; secrets from {@code env:NAME} or {@code file:PATH} references ({@link SecretReference}). */
record SimpleConnectorContext(Map<String, String> settings) implements ConnectorContext {

    @Override
    public Optional<String> secret(String reference) {
        if (reference == null || reference.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(SecretReference.resolve(null, reference));
    }
}
