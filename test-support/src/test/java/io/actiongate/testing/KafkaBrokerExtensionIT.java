package io.actiongate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import io.actiongate.broker.EmbeddedKafkaBroker;

/**
 * Which classes share a broker: the classes of one launcher session (what Surefire and Failsafe run in one test JVM)
 * that ask for {@link KafkaBrokerExtension#shared()} with the same properties share one, kept until the session
 * ends; a class's own broker stops after the class.
 */
class KafkaBrokerExtensionIT {

    /** The broker each of the classes below saw, by class. */
    static final Map<Class<?>, EmbeddedKafkaBroker> SEEN = new ConcurrentHashMap<>();

    @Test
    void shouldShareOneBrokerAmongTheClassesOfASessionWithTheSamePropertiesAndStopItWithTheSession() {
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        EmbeddedKafkaBroker shared;
        EmbeddedKafkaBroker own;
        EmbeddedKafkaBroker other;
        try (LauncherSession session = LauncherFactory.openSession()) {
            session.getLauncher().execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(SharedOne.class), selectClass(Own.class), selectClass(SharedTwo.class),
                            selectClass(SharedWithOtherProperties.class))
                    .build(), summary);
            TestExecutionSummary result = summary.getSummary();
            assertThat(result.getFailures()).as("failures of the classes run").isEmpty();
            assertThat(result.getTestsSucceededCount()).isEqualTo(4);

            shared = SEEN.get(SharedOne.class);
            own = SEEN.get(Own.class);
            other = SEEN.get(SharedWithOtherProperties.class);
            assertThat(SEEN.get(SharedTwo.class)).as("the second class asking for the shared broker").isSameAs(shared);
            assertThat(own).as("a class's own broker").isNotSameAs(shared);
            assertThat(other).as("a shared broker with other properties").isNotSameAs(shared).isNotSameAs(own);

            assertThat(own.dataDir()).as("a class's own broker stops after the class").doesNotExist();
            assertThat(shared.dataDir()).as("the shared broker outlives the classes that used it").exists();
            assertThat(other.dataDir()).exists();
        }
        assertThat(shared.dataDir()).as("the session's end stops the shared brokers").doesNotExist();
        assertThat(other.dataDir()).doesNotExist();
    }

    static final class SharedOne {
        @RegisterExtension
        static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

        @Test
        void shouldRunOnTheSharedBroker() throws Exception {
            SEEN.put(SharedOne.class, KAFKA.broker());
            assertThat(KAFKA.admin().describeCluster().nodes().get()).hasSize(1);
        }
    }

    static final class Own {
        @RegisterExtension
        static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

        @Test
        void shouldRunOnItsOwnBroker() {
            SEEN.put(Own.class, KAFKA.broker());
            assertThat(Files.isDirectory(KAFKA.broker().dataDir())).isTrue();
        }
    }

    static final class SharedTwo {
        @RegisterExtension
        static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

        @Test
        void shouldRunOnTheSharedBrokerToo() throws Exception {
            SEEN.put(SharedTwo.class, KAFKA.broker());
            assertThat(KAFKA.admin().describeCluster().nodes().get()).hasSize(1);
        }
    }

    static final class SharedWithOtherProperties {
        @RegisterExtension
        static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared()
                .withBrokerProperty("log.retention.ms", "3600000");

        @Test
        void shouldRunOnASharedBrokerOfItsProperties() {
            SEEN.put(SharedWithOtherProperties.class, KAFKA.broker());
        }
    }
}
