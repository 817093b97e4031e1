package io.actiongate.approver.web;

import java.util.Map;

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

    /** The defaults: 16 threads, 128 pages waiting for a turn, 512 connections, 10 s for head and body, 30 s idle. */
    public static final HttpLimits DEFAULTS = new HttpLimits(16, 128, 512, 10_000, 10_000, 30_000);

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

    public static HttpLimits from(Map<String, String> c) {
        HttpLimits d = DEFAULTS;
        return new HttpLimits((int) number(c, THREADS_MAX, d.maxThreads), (int) number(c, QUEUE_MAX, d.maxQueued),
                (int) number(c, CONNECTIONS_MAX, d.maxConnections), number(c, HEADER_TIMEOUT_MS, d.headerTimeoutMs),
                number(c, BODY_TIMEOUT_MS, d.bodyTimeoutMs), number(c, IDLE_TIMEOUT_MS, d.idleTimeoutMs));
    }

    private static long number(Map<String, String> c, String key, long dflt) {
        String v = c.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(key + " is too large");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number", e);
        }
    }
}
