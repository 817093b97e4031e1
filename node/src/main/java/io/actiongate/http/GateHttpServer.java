package io.actiongate.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import com.sun.net.httpserver.HttpServer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The HTTP surface of one gate instance (ARCHITECTURE.md section 7) on the JDK's HTTP server:
 * {@code GET /v1/actions/{task_id}/{tool_call_id}}, {@code /metrics}, {@code /health/live}, {@code /health/ready}.
 * Requests run on a small bounded pool; when it is saturated the accepting thread runs the request itself, which
 * slows accepting down instead of queueing without bound.
 */
public final class GateHttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GateHttpServer.class);
    private static final int THREADS = 4;
    private static final int QUEUE = 64;

    private final HttpServerConfig config;
    private final ActionStateQuery actions;
    private final PrometheusRegistry registry;
    private final BooleanSupplier ready;
    private HttpServer server;
    private ThreadPoolExecutor executor;

    /**
     * @param actions  the action state query (usually a {@link StreamsActionStateQuery})
     * @param registry what {@code /metrics} exposes
     * @param ready    the readiness check, e.g. {@code () -> streams.state() == KafkaStreams.State.RUNNING}
     */
    public GateHttpServer(HttpServerConfig config, ActionStateQuery actions, PrometheusRegistry registry,
                          BooleanSupplier ready) {
        this.config = Objects.requireNonNull(config, "config");
        this.actions = Objects.requireNonNull(actions, "actions");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.ready = Objects.requireNonNull(ready, "ready");
    }

    /** Binds and starts serving. Returns {@code this}. */
    public synchronized GateHttpServer start() {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        HttpServer created;
        try {
            created = HttpServer.create(new InetSocketAddress(config.bindAddress(), config.port()), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind HTTP on " + config.bindAddress() + ":" + config.port(), e);
        }
        executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                daemonThreads(), new ThreadPoolExecutor.CallerRunsPolicy());
        executor.allowCoreThreadTimeOut(true);
        created.setExecutor(executor);
        created.createContext(ActionsHandler.PREFIX, new ActionsHandler(actions));
        created.createContext(MetricsHandler.PATH, new MetricsHandler(registry));
        created.createContext(HealthHandler.LIVE, new HealthHandler(ready));
        created.createContext(HealthHandler.READY, new HealthHandler(ready));
        created.start();
        server = created;
        LOG.info("HTTP surface listening on {}:{}", config.bindAddress(), port());
        return this;
    }

    /** The bound port (useful with port 0). */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return server.getAddress().getPort();
    }

    @Override
    public synchronized void close() {
        if (server == null) {
            return;
        }
        server.stop(0);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        server = null;
        LOG.info("HTTP surface stopped");
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "actiongate-http-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
