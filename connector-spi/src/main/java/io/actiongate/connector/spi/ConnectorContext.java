package io.actiongate.connector.spi;

import java.util.Map;
import java.util.Optional;

/**
 * What a connector is configured with: its own keys, stripped of the {@code connectors.<provider>.} prefix,
 * and a way to read secrets that never puts them into the configuration map (or a log).
 */
public interface ConnectorContext {

    /** This connector's settings, e.g. {@code base-url} for {@code connectors.webhook.base-url}. */
    Map<String, String> settings();

    default Optional<String> setting(String key) {
        return Optional.ofNullable(settings().get(key));
    }

    default String requiredSetting(String key) {
        return setting(key).orElseThrow(() -> new IllegalArgumentException(
                "missing connector setting '" + key + "'"));
    }

    /**
     * Resolves a secret reference such as {@code env:WEBHOOK_TOKEN} or {@code file:/run/secrets/token}.
     * Returns empty when the reference is absent; throws when it names a source that cannot be read.
     */
    Optional<String> secret(String reference);

    static ConnectorContext of(Map<String, String> settings) {
        return new SimpleConnectorContext(Map.copyOf(settings));
    }

    /**
     * The same settings with no way to read a secret: {@link #secret} throws {@link CredentialsUnavailableException}
     * for any reference. What {@link ConnectorFactory#classifier} is built with.
     */
    static ConnectorContext withoutCredentials(Map<String, String> settings) {
        return new CredentialFreeContext(Map.copyOf(settings));
    }
}
