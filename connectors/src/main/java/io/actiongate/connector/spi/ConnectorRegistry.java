package io.actiongate.connector.spi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * The connectors found on the classpath by {@link ServiceLoader}, built from configuration keys
 * {@code connectors.<provider>.<setting>}. A provider is built when it has any setting (or
 * {@code connectors.<provider>.enabled=true}) and skipped when it has none or {@code enabled=false}, so a deployment
 * names only the providers it uses; a configured provider with a bad or missing setting fails loading, naming it.
 */
public final class ConnectorRegistry implements AutoCloseable {

    public static final String PREFIX = "connectors.";

    private final Map<String, Connector> connectors;

    private ConnectorRegistry(Map<String, Connector> connectors) {
        this.connectors = connectors;
    }

    /** Loads every factory on the classpath and builds the enabled ones from {@code config}. */
    public static ConnectorRegistry load(Map<String, String> config) {
        return load(config, ConnectorRegistry.class.getClassLoader());
    }

    public static ConnectorRegistry load(Map<String, String> config, ClassLoader loader) {
        Map<String, Connector> built = new LinkedHashMap<>();
        for (ConnectorFactory factory : ServiceLoader.load(ConnectorFactory.class, loader)) {
            String provider = factory.provider();
            Map<String, String> settings = settingsFor(config, provider);
            String enabled = settings.get("enabled");
            if ("false".equalsIgnoreCase(enabled) || (settings.isEmpty() && enabled == null)) {
                continue;
            }
            if (built.containsKey(provider)) {
                throw new IllegalStateException("two connector factories claim provider '" + provider + "'");
            }
            try {
                built.put(provider, factory.create(ConnectorContext.of(settings)));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("connector '" + provider + "': " + e.getMessage(), e);
            }
        }
        return new ConnectorRegistry(built);
    }

    /** A registry of the given connectors, for tests and embedding. */
    public static ConnectorRegistry of(Connector... connectors) {
        Map<String, Connector> built = new LinkedHashMap<>();
        for (Connector connector : connectors) {
            built.put(connector.provider(), connector);
        }
        return new ConnectorRegistry(built);
    }

    static Map<String, String> settingsFor(Map<String, String> config, String provider) {
        String prefix = PREFIX + provider + ".";
        Map<String, String> settings = new TreeMap<>();
        config.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                settings.put(key.substring(prefix.length()), value);
            }
        });
        return settings;
    }

    public Optional<Connector> find(String provider) {
        return Optional.ofNullable(connectors.get(provider));
    }

    public Set<String> providers() {
        return connectors.keySet();
    }

    @Override
    public void close() {
        connectors.values().forEach(Connector::close);
    }
}
