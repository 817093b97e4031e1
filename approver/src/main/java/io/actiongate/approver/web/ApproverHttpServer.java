package io.actiongate.approver.web;

import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import io.actiongate.runtime.HttpSurface;
import io.actiongate.runtime.HttpSurface.ProbeAnswer;

/**
 * The approval pages on the runtime's Jetty ({@link HttpSurface}, the same server as the node API and the MCP
 * gateway). It speaks plain HTTP: in production TLS ends in front of it (ingress), and the public URL is https;
 * cookies are {@code Secure} either way.
 *
 * <p>Slow and hostile clients are the runtime's business, with the limits of {@link HttpLimits}: request heads
 * within seconds, a bounded pool, bounded pages at once and waiting (503 beyond), bounded connections; request
 * bodies have their own deadline (see {@link Exchange}). The health probes are the runtime's: answered before any
 * page code, they never wait on the app, the feed or a slow client.
 */
public final class ApproverHttpServer implements AutoCloseable {

    /** What the server hands every page request to. */
    @FunctionalInterface
    public interface App {
        void handle(Exchange exchange) throws Exception;
    }

    private final HttpSurface server;

    public ApproverHttpServer(String bindAddress, int port, HttpLimits limits, BooleanSupplier ready, App app) {
        server = HttpSurface.builder("approver")
                .bind(bindAddress, port)
                .limits(limits.runtime())
                .probe("/health/live", () -> ProbeAnswer.text(200, "ok\n"))
                .probe("/health/ready", () -> ready.getAsBoolean() ? ProbeAnswer.text(200, "ready\n")
                        : ProbeAnswer.text(503, "not ready\n"))
                .app(new Pages(app, limits.bodyTimeoutMs()))
                .build();
    }

    public ApproverHttpServer start() {
        server.start();
        return this;
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }

    /** Every other path: the pages, on a worker thread (they may block on Kafka or the identity provider). */
    private static final class Pages extends Handler.Abstract {
        private final App app;
        private final long bodyTimeoutMs;

        Pages(App app, long bodyTimeoutMs) {
            this.app = app;
            this.bodyTimeoutMs = bodyTimeoutMs;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            Exchange ex = new Exchange(request, response, callback, bodyTimeoutMs);
            try {
                app.handle(ex);
            } catch (Exchange.BodyException e) {
                if (!ex.sent()) {
                    ex.send(e.status(), "text/plain; charset=utf-8",
                            (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
                }
            } finally {
                ex.finish();
            }
            return true;
        }
    }
}
