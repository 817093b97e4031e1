package io.actiongate.connector.spi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Settings from a map; secrets from {@code env:NAME} or {@code file:PATH} references. */
record SimpleConnectorContext(Map<String, String> settings) implements ConnectorContext {

    @Override
    public Optional<String> secret(String reference) {
        if (reference == null || reference.isBlank()) {
            return Optional.empty();
        }
        if (reference.startsWith("env:")) {
            String name = reference.substring(4);
            String value = System.getenv(name);
            if (value == null) {
                throw new IllegalArgumentException("environment variable " + name + " is not set");
            }
            return Optional.of(value);
        }
        if (reference.startsWith("file:")) {
            Path path = Path.of(reference.substring(5));
            try {
                return Optional.of(Files.readString(path, StandardCharsets.UTF_8).strip());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read secret file " + path, e);
            }
        }
        throw new IllegalArgumentException("a secret must be given as env:NAME or file:PATH, not inline");
    }
}
