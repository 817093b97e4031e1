package io.actiongate.approver.web;

import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;

/**
 * The runtime's HTTP limits ({@link io.actiongate.runtime.HttpLimits}, set once for every surface) under the
 * approval service's prefix {@value #PREFIX}: a bounded worker pool, bounded pages at once and waiting for a turn, a
 * bounded number of connections, and deadlines of seconds for a request's headers and its body. Keys (all
 * optional): {@code approver.http.threads.max}, {@code approver.http.queue.max},
 * {@code approver.http.connections.max}, {@code approver.http.header.timeout.ms},
 * {@code approver.http.body.timeout.ms}, {@code approver.http.idle.timeout.ms}.
 */
public record HttpLimits(int maxThreads, int maxQueued, int maxConnections, long headerTimeoutMs, long bodyTimeoutMs,
                         long idleTimeoutMs) {

    public static final String PREFIX = "approver.http.";
    public static final String THREADS_MAX = PREFIX + io.actiongate.runtime.HttpLimits.THREADS_MAX;
    public static final String QUEUE_MAX = PREFIX + io.actiongate.runtime.HttpLimits.QUEUE_MAX;
    public static final String CONNECTIONS_MAX = PREFIX + io.actiongate.runtime.HttpLimits.CONNECTIONS_MAX;
    public static final String HEADER_TIMEOUT_MS = PREFIX + io.actiongate.runtime.HttpLimits.HEADER_TIMEOUT_MS;
    public static final String BODY_TIMEOUT_MS = PREFIX + io.actiongate.runtime.HttpLimits.BODY_TIMEOUT_MS;
    public static final String IDLE_TIMEOUT_MS = PREFIX + io.actiongate.runtime.HttpLimits.IDLE_TIMEOUT_MS;

    /** The runtime's defaults: 16 threads, 128 pages waiting for a turn, 512 connections, 10 s head and body, 30 s idle. */
    public static final HttpLimits DEFAULTS = of(io.actiongate.runtime.HttpLimits.DEFAULTS);

    /** The keys above with their defaults ({@link #DEFAULTS}) and bounds: the runtime's, under {@value #PREFIX}. */
    public static final ConfigDef CONFIG_DEF = io.actiongate.runtime.HttpLimits.configDef(PREFIX);

    public HttpLimits {
        // the runtime's checks, once for every surface
        new io.actiongate.runtime.HttpLimits(maxThreads, maxQueued, maxConnections, headerTimeoutMs, bodyTimeoutMs,
                idleTimeoutMs);
    }

    /** Reads the keys of {@link #CONFIG_DEF}; throws {@link IllegalArgumentException} naming a bad key. */
    public static HttpLimits from(Map<String, String> c) {
        return of(io.actiongate.runtime.HttpLimits.from(c, PREFIX));
    }

    /** The runtime's form, which the server is built from. */
    public io.actiongate.runtime.HttpLimits runtime() {
        return new io.actiongate.runtime.HttpLimits(maxThreads, maxQueued, maxConnections, headerTimeoutMs,
                bodyTimeoutMs, idleTimeoutMs);
    }

    private static HttpLimits of(io.actiongate.runtime.HttpLimits l) {
        return new HttpLimits(l.maxThreads(), l.maxQueued(), l.maxConnections(), l.headerTimeoutMs(),
                l.bodyTimeoutMs(), l.idleTimeoutMs());
    }
}
