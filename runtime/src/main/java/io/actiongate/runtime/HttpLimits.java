package io.actiongate.runtime;

import java.util.Map;

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

    /** The limits under {@code prefix} (e.g. {@code "http."}), each absent key at its default. */
    public static HttpLimits from(Map<String, ?> config, String prefix) {
        HttpLimits d = DEFAULTS;
        int threads = (int) number(config, prefix + THREADS_MAX, d.maxThreads);
        int queued = (int) number(config, prefix + QUEUE_MAX, d.maxQueued);
        int connections = (int) number(config, prefix + CONNECTIONS_MAX, d.maxConnections);
        long header = number(config, prefix + HEADER_TIMEOUT_MS, d.headerTimeoutMs);
        long body = number(config, prefix + BODY_TIMEOUT_MS, d.bodyTimeoutMs);
        long idle = number(config, prefix + IDLE_TIMEOUT_MS, d.idleTimeoutMs);
        check(prefix, threads, queued, connections, header, body, idle);
        return new HttpLimits(threads, queued, connections, header, body, idle);
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

    private static long number(Map<String, ?> config, String key, long dflt) {
        Object value = config.get(key);
        String v = value == null ? null : value.toString();
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
            throw new IllegalArgumentException(key + " must be a whole number, was '" + v.strip() + "'", e);
        }
    }
}
