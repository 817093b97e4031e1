package io.actiongate.broker;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;

/**
 * A single-node Kafka broker (KRaft, roles broker+controller) running in this JVM, bound to 127.0.0.1 only.
 *
 * <p>Used by {@code actiongate dev} and by the {@code *IT} tests of every module. Internal topics have replication
 * factor 1 and min ISR 1, so transactions (EOS v2) and consumer groups work on one node; automatic topic creation is
 * off, so every topic must be created explicitly, as in production. With {@link Builder#security} it is a secured
 * broker instead ({@link BrokerSecurity}: SASL_SSL/SCRAM on the client port, mTLS on a second one, ACLs enforced).
 *
 * <pre>{@code
 * try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().port(0).start()) {
 *     String bootstrap = broker.bootstrapServers(); // "127.0.0.1:PORT"
 * }
 * }</pre>
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    public static final String CLIENT_LISTENER = "PLAINTEXT";
    public static final String CONTROLLER_LISTENER = "CONTROLLER";
    /** Generous: a cold start takes a few seconds, but much longer on a CPU shared by many builds. */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
    private static final int NODE_ID = 1;

    private final int port;
    private final int mtlsPort;
    private final int controllerPort;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final BrokerSecurity security;
    private final KafkaRaftServer server;
    private boolean closed;

    private EmbeddedKafkaBroker(int port, int mtlsPort, int controllerPort, Path dataDir, boolean ownsDataDir,
                                BrokerSecurity security, KafkaRaftServer server) {
        this.port = port;
        this.mtlsPort = mtlsPort;
        this.controllerPort = controllerPort;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.security = security;
        this.server = server;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Client bootstrap address, {@code 127.0.0.1:PORT}: the SASL_SSL listener of a secured broker. */
    public String bootstrapServers() {
        return Ports.LOOPBACK + ":" + port;
    }

    /** The mTLS (client certificate required) listener of a secured broker. */
    public String mtlsBootstrapServers() {
        if (security == null) {
            throw new IllegalStateException("this broker was started without BrokerSecurity: it has no mTLS listener");
        }
        return Ports.LOOPBACK + ":" + mtlsPort;
    }

    /** How this broker is secured, if it is. */
    public Optional<BrokerSecurity> security() {
        return Optional.ofNullable(security);
    }

    /**
     * Client settings of a principal allowed everything: {@code bootstrap.servers} alone on a plain broker, the
     * broker's own certificate over mTLS on a secured one (to create topics, users and ACLs).
     */
    public Map<String, Object> superUserClientProperties() {
        if (security == null) {
            return new LinkedHashMap<>(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
        }
        return security.superUserClientProperties(mtlsBootstrapServers());
    }

    public int port() {
        return port;
    }

    public int controllerPort() {
        return controllerPort;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Stops the broker and waits for its shutdown; deletes the data directory if it was a temporary one. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long started = System.nanoTime();
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            if (ownsDataDir) {
                deleteQuietly(dataDir);
            }
        }
        LOG.info("Embedded Kafka broker on {} stopped in {} ms", bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private static void deleteQuietly(Path dir) {
        try {
            Utils.delete(dir.toFile());
        } catch (IOException e) {
            LOG.warn("Could not delete broker data directory {}: {}", dir, e.getMessage());
        }
    }

    /** Settings of one embedded broker. */
    public static final class Builder {
        private int port;
        private Path dataDir;
        private Duration startTimeout = DEFAULT_START_TIMEOUT;
        private BrokerSecurity security;
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();

        private Builder() {
        }

        /** Client port on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /** Where the broker keeps its logs and metadata; kept on close. Default: a temporary directory, deleted. */
        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        /** An extra broker property; wins over the defaults of this class. */
        public Builder brokerProperty(String key, String value) {
            brokerProperties.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        public Builder brokerProperties(Map<String, String> properties) {
            properties.forEach(this::brokerProperty);
            return this;
        }

        /**
         * Secures the broker ({@link BrokerSecurity}): the client port becomes a SASL_SSL (SCRAM-SHA-512) listener,
         * a second port an mTLS one, and ACLs are enforced. Off by default.
         */
        public Builder security(BrokerSecurity security) {
            this.security = Objects.requireNonNull(security);
            return this;
        }

        /** How long {@link #start()} waits for the broker to answer. */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = Objects.requireNonNull(startTimeout);
            return this;
        }

        /**
         * Formats the storage, starts the broker and returns once it answers a describeCluster request.
         *
         * @throws PortInUseException when the requested client port is taken (checked before anything starts)
         * @throws BrokerStartException when formatting or startup fails or the broker does not answer in time
         */
        public EmbeddedKafkaBroker start() {
            long started = System.nanoTime();
            if (port != 0) {
                Ports.requireFree(port);
            }
            int clientPort = port != 0 ? port : Ports.pickFree();
            int controllerPort = pickControllerPort(clientPort);
            int mtlsPort = 0;
            if (security != null) {
                do {
                    mtlsPort = Ports.pickFree();
                } while (mtlsPort == clientPort || mtlsPort == controllerPort);
            }
            boolean ownsDataDir = dataDir == null;
            Path dir = ownsDataDir ? createTempDir() : dataDir;
            Path logDir = dir.resolve("kraft-logs");

            Map<String, String> props = BrokerProperties.singleNode(NODE_ID, clientPort, controllerPort, logDir);
            if (security != null) {
                props.putAll(security.brokerProperties(clientPort, mtlsPort, controllerPort));
            }
            props.putAll(brokerProperties);

            KafkaRaftServer server = null;
            try {
                Files.createDirectories(logDir);
                KafkaConfig config = new KafkaConfig(props, false);
                format(logDir);
                server = new KafkaRaftServer(config, Time.SYSTEM);
                server.startup();
                EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(clientPort, mtlsPort, controllerPort, dir,
                        ownsDataDir, security, server);
                awaitReady(broker.superUserClientProperties(), startTimeout);
                LOG.info("Embedded Kafka broker ready on {}{} in {} ms (data {})", broker.bootstrapServers(),
                        security == null ? "" : " (SASL_SSL; mTLS on " + broker.mtlsBootstrapServers() + ")",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), dir);
                return broker;
            } catch (RuntimeException | IOException e) {
                stopQuietly(server);
                if (ownsDataDir) {
                    deleteQuietly(dir);
                }
                if (e instanceof PortInUseException || e instanceof BrokerStartException) {
                    throw (RuntimeException) e;
                }
                throw new BrokerStartException("embedded Kafka broker on " + Ports.LOOPBACK + ":" + clientPort
                        + " failed to start: " + e.getMessage(), e);
            }
        }

        private static int pickControllerPort(int clientPort) {
            int candidate = Ports.pickFree();
            while (candidate == clientPort) {
                candidate = Ports.pickFree();
            }
            return candidate;
        }

        private static Path createTempDir() {
            try {
                return Files.createTempDirectory("actiongate-kafka-");
            } catch (IOException e) {
                throw new BrokerStartException("cannot create a temporary broker data directory: "
                        + e.getMessage(), e);
            }
        }

        /** Writes meta.properties and the bootstrap metadata, as {@code kafka-storage format} does. */
        private static void format(Path logDir) {
            if (Files.exists(logDir.resolve("meta.properties"))) {
                // a data directory given by the user is reused across restarts (dev --data-dir)
                LOG.info("Reusing formatted KRaft storage in {}", logDir);
                return;
            }
            Formatter formatter = new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                    .setNodeId(NODE_ID)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setDirectories(List.of(logDir.toString()))
                    .setMetadataLogDirectory(logDir.toString())
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION);
            try {
                formatter.run();
            } catch (Exception e) {
                throw new BrokerStartException("cannot format KRaft storage in " + logDir + ": " + e.getMessage(),
                        e);
            }
        }

        private static void awaitReady(Map<String, Object> clientProps, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            Map<String, Object> adminProps = new LinkedHashMap<>(clientProps);
            adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
            adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2_000);
            Object bootstrapServers = clientProps.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
            try (Admin admin = Admin.create(adminProps)) {
                Exception last = null;
                while (System.nanoTime() < deadline) {
                    try {
                        if (!admin.describeCluster(new DescribeClusterOptions().timeoutMs(2_000)).nodes()
                                .get(3, TimeUnit.SECONDS).isEmpty()) {
                            return;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        last = e;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new BrokerStartException("interrupted while waiting for the broker", e);
                    }
                    sleep(50);
                }
                throw new BrokerStartException("embedded Kafka broker on " + bootstrapServers
                        + " did not answer within " + timeout.toSeconds() + " s", last);
            }
        }

        private static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BrokerStartException("interrupted while waiting for the broker", e);
            }
        }

        private static void stopQuietly(KafkaRaftServer server) {
            if (server == null) {
                return;
            }
            try {
                server.shutdown();
                server.awaitShutdown();
            } catch (RuntimeException e) {
                LOG.warn("Error while stopping a broker that failed to start: {}", e.getMessage());
            }
        }
    }
}
