package io.actiongate.connector.testing;

import io.actiongate.connector.spi.ConnectorContext;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Settings plus in-memory secrets, resolved by the same {@code env:}/{@code file:} references as in production. */
public record TestContext(Map<String, String> settings, Map<String, String> secrets) implements ConnectorContext {

    public static TestContext of(Map<String, String> settings, Map<String, String> secrets) {
        return new TestContext(Map.copyOf(settings), Map.copyOf(secrets));
    }

    public TestContext with(String key, String value) {
        Map<String, String> copy = new HashMap<>(settings);
        copy.put(key, value);
        return new TestContext(Map.copyOf(copy), secrets);
    }

    @Override
    public Optional<String> secret(String reference) {
        if (reference == null || reference.isBlank()) {
            return Optional.empty();
        }
        String value = secrets.get(reference);
        if (value == null) {
            throw new IllegalArgumentException("unknown secret reference");
        }
        return Optional.of(value);
    }
}
