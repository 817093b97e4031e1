package io.actiongate.broker;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

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
    private EmbeddedKafkaBroker broker;
    private Admin admin;

    public KafkaBrokerExtension() {
    }

    /** An extra broker property for this class's broker. */
    public KafkaBrokerExtension withBrokerProperty(String key, String value) {
        brokerProperties.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = EmbeddedKafkaBroker.builder().brokerProperties(brokerProperties).start();
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

    /** {@code bootstrap.servers} only, as a mutable map to add client settings to. */
    public Map<String, Object> clientProperties() {
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }
}
