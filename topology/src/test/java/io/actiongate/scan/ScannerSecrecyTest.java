package io.actiongate.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/** A finding, and everything the scanner logs, name the detector and the place, never the matched text. */
class ScannerSecrecyTest {

    private final CredentialScanner scanner = CredentialScanner.defaults();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private Logger logger;
    private Level previousLevel;

    @BeforeEach
    void captureLogs() {
        logger = (Logger) LoggerFactory.getLogger("io.actiongate.scan");
        previousLevel = logger.getLevel();
        logger.setLevel(Level.TRACE);
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        logger.detachAppender(logs);
        logger.setLevel(previousLevel);
    }

    static List<Arguments> positiveTextVectors() {
        return DetectorVectorsTest.textVectors()
                .filter(a -> (Boolean) a.get()[1])
                .map(a -> Arguments.of(a.get()[0], a.get()[2]))
                .toList();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("positiveTextVectors")
    void shouldNeverRevealTheMatchedTextInFindingsOrLogs(String id, String secretText) {
        String secret = secretPart(secretText);
        String asJsonValue = "{\"field\":\"" + secretText.replace("\\", "\\\\").replace("\"", "\\\"")
                .replace("\n", "\\n") + "\"}";
        String broken = "{broken " + secretText;

        for (Optional<Finding> finding : List.of(scanner.scan(secretText), scanner.scanJson(asJsonValue),
                scanner.scanJson(broken))) {
            assertThat(finding).as("fires on %s", id).isPresent();
            assertThat(finding.orElseThrow().toString()).doesNotContain(secret);
        }
        assertThat(logs.list).as("the scanner logs each finding").isNotEmpty();
        for (ILoggingEvent event : logs.list) {
            assertThat(event.getFormattedMessage()).doesNotContain(secret);
            for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
            }
        }
    }

    /** The longest word of the vector: the credential itself rather than its surrounding label. */
    private static String secretPart(String text) {
        String longest = "";
        for (String word : text.split("[\\s\"'=:,{}]+")) {
            if (word.length() > longest.length()) {
                longest = word;
            }
        }
        return longest;
    }
}
