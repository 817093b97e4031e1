package io.actiongate.cli;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;

/** Runtime log level changes for {@code --verbose}. */
final class Logging {

    private Logging() {
    }

    static void enableDebug() {
        if (LoggerFactory.getLogger("io.actiongate") instanceof Logger) {
            ((Logger) LoggerFactory.getLogger("io.actiongate")).setLevel(Level.DEBUG);
        }
    }
}
