package io.actiongate.runtime;

import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.ConfigDefs;

/**
 * How much one HTTP surface gives any one client, set once here for every surface (the node API, the approval
 * service, the MCP gateway): a bounded worker pool, bounded requests at once and waiting for a turn, a bounded
 * number of connections, and deadlines of seconds for a request's head and its body. Each surface reads them under
 * its own prefix ({@code http.}, {@code approver.http.}, {@code mcp.gateway.http.}), keys (all optional):
 * {@code <prefix>threads.max}, {@code <prefix>queue.max}, {@code <prefix>connections.max},
 * {@code <prefix>header.timeout.ms}, {@code <prefix>body.timeout.ms}, {@code <prefix>idle.timeout.ms}.
 */
public record HttpLimits(int maxThreads, int maxQueued, int maxConnections, long headerTimeoutMs, long bodyTimeoutMs,
                         long idleTimeoutMs) {

    public static final String THREADS_MAX = "threads.max";
    public static final String QUEUE_MAX = "queue.max";
    public static final String CONNECTIONS_MAX = "connections.max";
    public static final String HEADER_TIMEOUT_MS = "header.timeout.ms";
    public static final String BODY_TIMEOUT_MS = "body.timeout.ms";
    public static final String IDLE_TIMEOUT_MS = "idle.timeout.ms";

    public static final String THREADS_MAX_DOC = "Worker threads of the HTTP server (at least 8: Jetty's acceptor "
            + "and selector share the pool; 4 stay free for the health probes).";
    public static final String QUEUE_MAX_DOC = "Requests waiting for a turn when threads.max - 4 are handled at "
            + "once; beyond that 503 at once.";
    public static final String CONNECTIONS_MAX_DOC = "Open connections at most; further ones wait in the accept "
            + "queue.";
    public static final String HEADER_TIMEOUT_MS_DOC = "A connection whose request head (line and headers) is not "
            + "complete within this many ms since it opened or since its last response is closed.";
    public static final String BODY_TIMEOUT_MS_DOC = "A request body must arrive within this many ms (else 408).";
    public static final String IDLE_TIMEOUT_MS_DOC = "A connection without any traffic for this many ms is closed.";

    /** Every key suffix. */
    public static final java.util.List<String> KEYS = java.util.List.of(THREADS_MAX, QUEUE_MAX, CONNECTIONS_MAX,
            HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, IDLE_TIMEOUT_MS);

    /** The defaults: 16 threads, 128 requests waiting for a turn, 512 connections, 10 s for head and body, 30 s idle. */
    public static final HttpLimits DEFAULTS = new HttpLimits(16, 128, 512, 10_000, 10_000, 30_000);

    public HttpLimits {
        check("", maxThreads, maxQueued, maxConnections, headerTimeoutMs, bodyTimeoutMs, idleTimeoutMs);
    }

    /** The keys under {@code prefix} (e.g. {@code "http."}) with their defaults ({@link #DEFAULTS}) and bounds. */
    public static ConfigDef configDef(String prefix) {
        HttpLimits d = DEFAULTS;
        Range positive = Range.between(1, Integer.MAX_VALUE);
        return new ConfigDef()
                .define(prefix + THREADS_MAX, Type.INT, d.maxThreads, Range.atLeast(8), Importance.LOW,
                        THREADS_MAX_DOC)
                .define(prefix + QUEUE_MAX, Type.INT, d.maxQueued, Range.atLeast(1), Importance.LOW, QUEUE_MAX_DOC)
                .define(prefix + CONNECTIONS_MAX, Type.INT, d.maxConnections, Range.atLeast(1), Importance.LOW,
                        CONNECTIONS_MAX_DOC)
                .define(prefix + HEADER_TIMEOUT_MS, Type.LONG, d.headerTimeoutMs, positive, Importance.LOW,
                        HEADER_TIMEOUT_MS_DOC)
                .define(prefix + BODY_TIMEOUT_MS, Type.LONG, d.bodyTimeoutMs, positive, Importance.LOW,
                        BODY_TIMEOUT_MS_DOC)
                .define(prefix + IDLE_TIMEOUT_MS, Type.LONG, d.idleTimeoutMs, positive, Importance.LOW,
                        IDLE_TIMEOUT_MS_DOC);
    }

    /**
     * The limits under {@code prefix} (e.g. {@code "http."}), each absent key at its default; throws
     * {@link IllegalArgumentException} naming a bad key.
     */
    public static HttpLimits from(Map<String, ?> config, String prefix) {
        Map<String, Object> v = ConfigDefs.parse(configDef(prefix), config);
        return new HttpLimits((Integer) v.get(prefix + THREADS_MAX), (Integer) v.get(prefix + QUEUE_MAX),
                (Integer) v.get(prefix + CONNECTIONS_MAX), (Long) v.get(prefix + HEADER_TIMEOUT_MS),
                (Long) v.get(prefix + BODY_TIMEOUT_MS), (Long) v.get(prefix + IDLE_TIMEOUT_MS));
    }

    /** The full keys under {@code prefix}. */
    public static java.util.List<String> keys(String prefix) {
        return KEYS.stream().map(k -> prefix + k).toList();
    }

    /** Requests handled at once by the pages / API: the pool minus what Jetty and the probes keep. */
    public int maxRequests() {
        return maxThreads - 4;
    }

    private static void check(String prefix, int maxThreads, int maxQueued, int maxConnections, long headerTimeoutMs,
                              long bodyTimeoutMs, long idleTimeoutMs) {
        if (maxThreads < 8) {
            // Jetty's acceptor and selector take threads of the same pool; below 8 too few are left for requests
            throw new IllegalArgumentException(prefix + THREADS_MAX + " must be at least 8");
        }
        if (maxQueued < 1) {
            throw new IllegalArgumentException(prefix + QUEUE_MAX + " must be positive");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException(prefix + CONNECTIONS_MAX + " must be positive");
        }
        if (headerTimeoutMs < 1 || bodyTimeoutMs < 1 || idleTimeoutMs < 1) {
            throw new IllegalArgumentException(prefix + HEADER_TIMEOUT_MS + ", " + prefix + BODY_TIMEOUT_MS + " and "
                    + prefix + IDLE_TIMEOUT_MS + " must be positive");
        }
    }
}
