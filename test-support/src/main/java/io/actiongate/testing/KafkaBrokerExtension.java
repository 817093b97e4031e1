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
 * One embedded KRaft broker per test class. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
 *
 * @Test
 * void shouldDoSomething(TestInfo test) {
 *     String prefix = TestNames.topicPrefix(test);      // unique per test method
 *     String appId = TestNames.applicationId(test);
 *     new TopicsCreator(KAFKA.admin()...) / KAFKA.bootstrapServers() ...
 * }
 * }</pre>
 *
 * Modules reach it through the test-support module ({@code actiongate-test-support}, {@code <scope>test</scope>}).
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback {

    private final Map<String, String> brokerProperties = new HashMap<>();
    private final boolean secured;
    private Path pkiDir;
    private TestPki pki;
    private EmbeddedKafkaBroker broker;
    private Admin admin;

    public KafkaBrokerExtension() {
        this(false);
    }

    private KafkaBrokerExtension(boolean secured) {
        this.secured = secured;
    }

    /**
     * A secured broker ({@link BrokerSecurity}): SASL_SSL with SCRAM-SHA-512 on {@link #bootstrapServers()}, mTLS
     * on the broker's {@code mtlsBootstrapServers()}, ACLs enforced, certificates from a fresh {@link TestPki}.
     * {@link #admin()} and {@link #clientProperties()} are the super user's; {@link #scramClient} and
     * {@link #tlsClient} make the principals under test.
     */
    public static KafkaBrokerExtension secured() {
        return new KafkaBrokerExtension(true);
    }

    /** An extra broker property for this class's broker. */
    public KafkaBrokerExtension withBrokerProperty(String key, String value) {
        brokerProperties.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
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
            if (broker != null) {
                broker.close();
                broker = null;
            }
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
}
