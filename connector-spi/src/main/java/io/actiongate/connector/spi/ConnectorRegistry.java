package io.actiongate.connector.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The connectors found on the classpath by {@link ServiceLoader}, built from configuration keys
 * {@code connectors.<provider>.<setting>}. A provider is built when it has any setting (or
 * {@code connectors.<provider>.enabled=true}) and skipped when it has none or {@code enabled=false}, so a deployment
 * names only the providers it uses; a configured provider with a bad or missing setting fails loading, naming it.
 * {@link #classifiers} builds only the credential-free classifiers of the same providers, for the gate.
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
        try {
            build(config, loader, (factory, settings) -> factory.create(ConnectorContext.of(settings)), built);
        } catch (RuntimeException e) {
            built.values().forEach(Connector::close);
            throw e;
        }
        return new ConnectorRegistry(built);
    }

    /**
     * The classifiers of every enabled connector, by provider, built from the same {@code connectors.<provider>.*}
     * settings and enabling rule as {@link #load} but without reading any credential: what a gate instance holds
     * (it has no provider secret). A credential reference that cannot be resolved on this machine is fine here;
     * a bad classification setting, or a classifier that tries to read a secret, fails naming the provider.
     */
    public static Map<String, OperationClassifier> classifiers(Map<String, String> config) {
        return classifiers(config, ConnectorRegistry.class.getClassLoader());
    }

    public static Map<String, OperationClassifier> classifiers(Map<String, String> config, ClassLoader loader) {
        Map<String, OperationClassifier> built = new LinkedHashMap<>();
        build(config, loader, (factory, settings) -> {
            OperationClassifier classifier = factory.classifier(ConnectorContext.withoutCredentials(settings));
            if (classifier == null || !factory.provider().equals(classifier.provider())) {
                throw new IllegalStateException("classifier does not serve provider '" + factory.provider() + "'");
            }
            return classifier;
        }, built);
        return Collections.unmodifiableMap(built);
    }

    private static <T> void build(Map<String, String> config, ClassLoader loader,
                                  BiFunction<ConnectorFactory, Map<String, String>, T> builder, Map<String, T> built) {
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
                built.put(provider, builder.apply(factory, settings));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("connector '" + provider + "': " + e.getMessage(), e);
            }
        }
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
