package io.actiongate.http;

import java.util.Map;
import java.util.Properties;

/**
 * Read timeouts of the JDK's HTTP server, which it takes from system properties once per JVM: a request whose
 * headers and body have not arrived within {@value #MAX_REQUEST_SECONDS} s is dropped (connection closed), checked
 * every {@value #CLOCK_TICK_MS} ms, so a client that sends slowly cannot hold one of the server's request threads
 * longer. Answers that are written later (long polls, proposal answers) are not request time. An operator's own
 * {@code -D} value wins.
 */
final class RequestTimeouts {

    static final String MAX_REQUEST_TIME = "sun.net.httpserver.maxReqTime";
    static final String CLOCK_TICK = "sun.net.httpserver.clockTick";
    static final int MAX_REQUEST_SECONDS = 10;
    static final int CLOCK_TICK_MS = 1_000;

    private RequestTimeouts() {
    }

    static void apply() {
        missing(System.getProperties()).forEach(System::setProperty);
    }

    static Map<String, String> missing(Properties current) {
        Map<String, String> missing = new java.util.HashMap<>();
        if (current.getProperty(MAX_REQUEST_TIME) == null) {
            missing.put(MAX_REQUEST_TIME, Integer.toString(MAX_REQUEST_SECONDS));
        }
        if (current.getProperty(CLOCK_TICK) == null) {
            missing.put(CLOCK_TICK, Integer.toString(CLOCK_TICK_MS));
        }
        return missing;
    }
}
