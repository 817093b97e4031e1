package io.actiongate.dev;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;

/** Log levels for the local environments of {@code dev} and {@code demo}. */
final class LocalLogging {

    private LocalLogging() {
    }

    /**
     * Loggers whose warnings are about production concerns that a local environment has on purpose: Kafka Streams'
     * notice that the global thread's processing exception handler will change default in Kafka 5.0, and its
     * warning that the state directory lies under the OS temp directory (dev's data directory does, and is deleted
     * on exit), and the object store's warning that the sandbox S3 server has no bucket lifecycle rules (it has
     * not; dev's receipts cleaner deletes staged objects). Errors still show, except the sandbox S3 server's own
     * log line for that same unsupported lifecycle request, which is its answer, not a failure.
     */
    /** Runs {@code work} with {@code loggers} off (logback only), then puts their levels back. */
    static <T> T quietly(java.util.function.Supplier<T> work, String... loggers) {
        java.util.Map<Logger, Level> before = new java.util.HashMap<>();
        for (String name : loggers) {
            if (LoggerFactory.getLogger(name) instanceof Logger logger) {
                before.put(logger, logger.getLevel());
                logger.setLevel(Level.OFF);
            }
        }
        try {
            return work.get();
        } finally {
            before.forEach(Logger::setLevel);
        }
    }

    static void quietForLocalEnvironment() {
        for (String name : new String[] {"org.apache.kafka.streams.StreamsConfig",
            "org.apache.kafka.streams.processor.internals.StateDirectory", "io.actiongate.storage.S3AttachmentStore"}) {
            if (LoggerFactory.getLogger(name) instanceof Logger logger) {
                logger.setLevel(Level.ERROR);
            }
        }
        if (LoggerFactory.getLogger("org.gaul.s3proxy.S3ProxyHandler") instanceof Logger logger) {
            logger.setLevel(Level.OFF);
        }
    }
}
