package io.actiongate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.actiongate.broker.BrokerSecurity;
import io.actiongate.broker.EmbeddedKafkaBroker;

/**
 * An embedded KRaft broker for a test class: {@link #shared()} one for every class of this test JVM that asks for
 * it, {@code new KafkaBrokerExtension()} one of the class's own. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();
 *
 * @Test
 * void shouldDoSomething(TestInfo test) {
 *     String prefix = TestNames.topicPrefix(test);      // unique per test method
 *     String appId = TestNames.applicationId(test);
 *     new TopicsCreator(KAFKA.admin()...) / KAFKA.bootstrapServers() ...
 * }
 * }</pre>
 *
 * A shared broker saves a broker start (seconds on a busy CPU) per class. Classes sharing it must not see each
 * other: every topic, consumer group, transactional id and Streams application id comes from {@link TestNames}, and
 * nothing lists or counts what the whole broker holds. A class that restarts or stops the broker, needs broker
 * properties of its own, a {@link #secured()} broker, or reads broker-wide state (every topic, group or transaction)
 * takes its own. Shared brokers with other {@link #withBrokerProperty properties} are distinct: classes share a
 * broker only when they ask for the same properties. The shared broker stops when the test JVM's launcher session
 * ends.
 *
 * <p>Modules reach it through the test-support module ({@code actiongate-test-support}, {@code <scope>test</scope>}).
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback {

    private static final ExtensionContext.Namespace SHARED = ExtensionContext.Namespace.create(
            KafkaBrokerExtension.class, "shared");

    /**
     * Broker properties of every broker this extension starts. Session timeouts down to 500 ms are allowed (Kafka's
     * minimum is 6 s), so that a test can let the group of a member it killed rebalance within a second or two;
     * clients that ask for no short session are not affected.
     */
    static final Map<String, String> TEST_DEFAULTS = Map.of("group.min.session.timeout.ms", "500");

    private final Map<String, String> brokerProperties = new HashMap<>(TEST_DEFAULTS);
    private final boolean secured;
    private final boolean shared;
    private Path pkiDir;
    private TestPki pki;
    private EmbeddedKafkaBroker broker;
    private Admin admin;

    /** A broker of this class's own, started before its tests and stopped after them. */
    public KafkaBrokerExtension() {
        this(false, false);
    }

    private KafkaBrokerExtension(boolean secured, boolean shared) {
        this.secured = secured;
        this.shared = shared;
    }

    /**
     * The broker every class of this test JVM shares that registers {@code shared()} with the same broker
     * properties: started by the first such class, stopped when the test run of the JVM ends, never by a class.
     */
    public static KafkaBrokerExtension shared() {
        return new KafkaBrokerExtension(false, true);
    }

    /**
     * A secured broker ({@link BrokerSecurity}): SASL_SSL with SCRAM-SHA-512 on {@link #bootstrapServers()}, mTLS
     * on the broker's {@code mtlsBootstrapServers()}, ACLs enforced, certificates from a fresh {@link TestPki}.
     * {@link #admin()} and {@link #clientProperties()} are the super user's; {@link #scramClient} and
     * {@link #tlsClient} make the principals under test.
     */
    public static KafkaBrokerExtension secured() {
        return new KafkaBrokerExtension(true, false);
    }

    /** An extra broker property for this class's broker. */
    public KafkaBrokerExtension withBrokerProperty(String key, String value) {
        brokerProperties.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (shared) {
            Map<String, String> key = Map.copyOf(brokerProperties);
            broker = context.getStore(ExtensionContext.StoreScope.LAUNCHER_SESSION, SHARED)
                    .getOrComputeIfAbsent(key, k -> new SharedBroker(EmbeddedKafkaBroker.builder()
                            .brokerProperties(k).start()), SharedBroker.class).broker();
            return;
        }
        EmbeddedKafkaBroker.Builder builder = EmbeddedKafkaBroker.builder().brokerProperties(brokerProperties);
        if (secured) {
            try {
                pkiDir = Files.createTempDirectory("actiongate-pki-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            pki = TestPki.create(pkiDir);
            builder.security(pki.brokerSecurity());
        }
        broker = builder.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            if (admin != null) {
                admin.close();
            }
        } finally {
            admin = null;
            if (broker != null && !shared) {
                broker.close();
            }
            broker = null;
            if (pkiDir != null) {
                try {
                    Utils.delete(pkiDir.toFile());
                } catch (IOException e) {
                    // a temporary directory: left for the OS
                }
                pkiDir = null;
            }
        }
    }

    public EmbeddedKafkaBroker broker() {
        if (broker == null) {
            throw new IllegalStateException("the broker runs only between beforeAll and afterAll; register "
                    + "KafkaBrokerExtension on a static field");
        }
        return broker;
    }

    public String bootstrapServers() {
        return broker().bootstrapServers();
    }

    /** A shared admin client for this class's broker, closed after all tests. */
    public synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(clientProperties());
        }
        return admin;
    }

    /**
     * {@code bootstrap.servers} only, as a mutable map to add client settings to; on a {@link #secured()} broker,
     * the super user's mTLS settings.
     */
    public Map<String, Object> clientProperties() {
        if (secured) {
            return new HashMap<>(broker().superUserClientProperties());
        }
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** The CA of a {@link #secured()} broker. */
    public TestPki pki() {
        if (pki == null) {
            throw new IllegalStateException("only a KafkaBrokerExtension.secured() broker has a PKI");
        }
        return pki;
    }

    /**
     * Creates the SCRAM-SHA-512 user {@code user} (principal {@code User:user}) with a random password and returns
     * the client settings that log in as it over SASL_SSL. Returns once the broker knows the credential.
     */
    public Map<String, Object> scramClient(String user) {
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        String password = HexFormat.of().formatHex(random);
        try {
            admin().alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password))).all()
                    .get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!admin().describeUserScramCredentials(List.of(user)).all().get(30, TimeUnit.SECONDS)
                    .containsKey(user)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the SCRAM credential of " + user + " did not appear");
                }
                Thread.sleep(50);
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot create the SCRAM user " + user + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return scramClient(user, password);
    }

    /** SASL_SSL client settings for {@code user} with {@code password} (not created: for wrong-password tests). */
    public Map<String, Object> scramClient(String user, String password) {
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        props.put("sasl.mechanism", BrokerSecurity.SCRAM_MECHANISM);
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + user + "\" password=\"" + password + "\";");
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.location", pki().truststore().toString());
        props.put("ssl.truststore.password", pki().password());
        return props;
    }

    /** mTLS client settings with a fresh {@code CN=cn} certificate: the principal {@code User:cn}. */
    public Map<String, Object> tlsClient(String cn) {
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker().mtlsBootstrapServers());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.location", pki().keystore(cn).toString());
        props.put("ssl.keystore.password", pki().password());
        props.put("ssl.key.password", pki().password());
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.location", pki().truststore().toString());
        props.put("ssl.truststore.password", pki().password());
        return props;
    }

    /** The store closes it when the launcher session ends: the JVM's last test class is done. */
    private record SharedBroker(EmbeddedKafkaBroker broker) implements AutoCloseable {
        @Override
        public void close() {
            broker.close();
        }
    }
}
