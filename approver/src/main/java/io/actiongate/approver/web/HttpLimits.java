package io.actiongate.approver.web;

import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.ConfigDefs;

/**
 * How much the approval service's HTTP surface gives any one client: a bounded worker pool, bounded pages at once
 * and waiting for a turn, a bounded number of connections, and deadlines of seconds for a request's headers and its
 * body. Keys (all optional):
 * {@code approver.http.threads.max}, {@code approver.http.queue.max}, {@code approver.http.connections.max},
 * {@code approver.http.header.timeout.ms}, {@code approver.http.body.timeout.ms},
 * {@code approver.http.idle.timeout.ms}.
 */
public record HttpLimits(int maxThreads, int maxQueued, int maxConnections, long headerTimeoutMs, long bodyTimeoutMs,
                         long idleTimeoutMs) {

    public static final String THREADS_MAX = "approver.http.threads.max";
    public static final String QUEUE_MAX = "approver.http.queue.max";
    public static final String CONNECTIONS_MAX = "approver.http.connections.max";
    public static final String HEADER_TIMEOUT_MS = "approver.http.header.timeout.ms";
    public static final String BODY_TIMEOUT_MS = "approver.http.body.timeout.ms";
    public static final String IDLE_TIMEOUT_MS = "approver.http.idle.timeout.ms";

    public static final String THREADS_MAX_DOC = "Jetty's worker pool (its acceptor and selector included; at least "
            + "8); at most this minus 4 pages are handled at once.";
    public static final String QUEUE_MAX_DOC = "Page requests waiting for a turn (each at most "
            + "approver.http.body.timeout.ms); beyond it 503 at once; the probes never wait.";
    public static final String CONNECTIONS_MAX_DOC = "Open connections; beyond it new ones wait in the accept "
            + "backlog.";
    public static final String HEADER_TIMEOUT_MS_DOC = "A request head (and the next one on a kept-alive "
            + "connection) must be complete this soon.";
    public static final String BODY_TIMEOUT_MS_DOC = "A form body must have arrived this soon after its head.";
    public static final String IDLE_TIMEOUT_MS_DOC = "A connection without any traffic is closed after this.";

    /** The defaults: 16 threads, 128 pages waiting for a turn, 512 connections, 10 s for head and body, 30 s idle. */
    public static final HttpLimits DEFAULTS = new HttpLimits(16, 128, 512, 10_000, 10_000, 30_000);

    /** The keys above with their defaults ({@link #DEFAULTS}) and bounds. */
    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(THREADS_MAX, Type.INT, DEFAULTS.maxThreads, Range.atLeast(8), Importance.LOW, THREADS_MAX_DOC)
            .define(QUEUE_MAX, Type.INT, DEFAULTS.maxQueued, Range.atLeast(1), Importance.LOW, QUEUE_MAX_DOC)
            .define(CONNECTIONS_MAX, Type.INT, DEFAULTS.maxConnections, Range.atLeast(1), Importance.LOW,
                    CONNECTIONS_MAX_DOC)
            .define(HEADER_TIMEOUT_MS, Type.LONG, DEFAULTS.headerTimeoutMs, Range.between(1, Integer.MAX_VALUE),
                    Importance.LOW, HEADER_TIMEOUT_MS_DOC)
            .define(BODY_TIMEOUT_MS, Type.LONG, DEFAULTS.bodyTimeoutMs, Range.between(1, Integer.MAX_VALUE),
                    Importance.LOW, BODY_TIMEOUT_MS_DOC)
            .define(IDLE_TIMEOUT_MS, Type.LONG, DEFAULTS.idleTimeoutMs, Range.between(1, Integer.MAX_VALUE),
                    Importance.LOW, IDLE_TIMEOUT_MS_DOC);

    public HttpLimits {
        if (maxThreads < 8) {
            // Jetty's acceptor and selector take threads of the same pool; below 8 too few are left for requests
            throw new IllegalArgumentException(THREADS_MAX + " must be at least 8");
        }
        if (maxQueued < 1 || maxConnections < 1) {
            throw new IllegalArgumentException(QUEUE_MAX + " and " + CONNECTIONS_MAX + " must be positive");
        }
        if (headerTimeoutMs < 1 || bodyTimeoutMs < 1 || idleTimeoutMs < 1) {
            throw new IllegalArgumentException(HEADER_TIMEOUT_MS + ", " + BODY_TIMEOUT_MS + " and " + IDLE_TIMEOUT_MS
                    + " must be positive");
        }
    }

    /** Reads the keys of {@link #CONFIG_DEF}; throws {@link IllegalArgumentException} naming a bad key. */
    public static HttpLimits from(Map<String, String> c) {
        Map<String, Object> v = ConfigDefs.parse(CONFIG_DEF, c);
        return new HttpLimits((Integer) v.get(THREADS_MAX), (Integer) v.get(QUEUE_MAX),
                (Integer) v.get(CONNECTIONS_MAX), (Long) v.get(HEADER_TIMEOUT_MS), (Long) v.get(BODY_TIMEOUT_MS),
                (Long) v.get(IDLE_TIMEOUT_MS));
    }
}
