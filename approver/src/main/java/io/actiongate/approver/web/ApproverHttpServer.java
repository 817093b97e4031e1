package io.actiongate.approver.web;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The approval pages on embedded Jetty (the same Jetty as the MCP gateway). It speaks plain HTTP: in production TLS
 * ends in front of it (ingress), and the public URL is https; cookies are {@code Secure} either way.
 *
 * <p>Slow and hostile clients: Jetty reads request heads without holding a thread, a {@link HeaderDeadline} closes
 * connections whose head does not complete within seconds, request bodies have their own deadline (see
 * {@link Exchange}), the worker pool is bounded, so are the pages handled at once and those waiting for a turn
 * (a QoSHandler: 503 beyond), and so is the number of connections. The health
 * probes are answered by their own tiny handlers, before any page code: they never wait on the app, the feed or a
 * slow client.
 */
public final class ApproverHttpServer implements AutoCloseable {

    /** What the server hands every page request to. */
    @FunctionalInterface
    public interface App {
        void handle(Exchange exchange) throws Exception;
    }

    private final Server server;
    private final ServerConnector connector;
    private final HeaderDeadline headerDeadline;

    public ApproverHttpServer(String bindAddress, int port, HttpLimits limits, BooleanSupplier ready, App app) {
        // Jetty's own selector and I/O tasks share this pool's queue, so the queue stays unbounded (Jetty warns and
        // may misbehave otherwise); page requests are bounded by the QoSHandler below, connections by the limit
        QueuedThreadPool pool = new QueuedThreadPool(limits.maxThreads(), Math.min(4, limits.maxThreads()));
        pool.setName("approver-http");
        pool.setDaemon(true);
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(16 * 1024);
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(bindAddress);
        connector.setPort(port);
        connector.setIdleTimeout(limits.idleTimeoutMs());
        headerDeadline = new HeaderDeadline(limits.headerTimeoutMs());
        connector.addEventListener(headerDeadline);
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));

        PathMappingsHandler routes = new PathMappingsHandler();
        routes.addMapping(PathSpec.from("/health/live"), new Text(() -> 200, "ok\n"));
        routes.addMapping(PathSpec.from("/health/ready"), new Text(() -> ready.getAsBoolean() ? 200 : 503, null));
        // at most threads - 4 pages at once (the acceptor, the selector and the probes keep theirs), at most
        // queue.max waiting for a turn, each for at most the body deadline; beyond that 503 at once
        QoSHandler pages = new QoSHandler(new Pages(app, limits.bodyTimeoutMs()));
        pages.setMaxRequestCount(limits.maxThreads() - 4);
        pages.setMaxSuspendedRequestCount(limits.maxQueued());
        pages.setMaxSuspend(java.time.Duration.ofMillis(limits.bodyTimeoutMs()));
        pages.setRejectStatusCode(503);
        routes.addMapping(PathSpec.from("/"), pages);
        server.setHandler(routes);
    }

    public ApproverHttpServer start() {
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot start the approval service's HTTP server on "
                    + connector.getHost() + ":" + connector.getPort() + ": " + e.getMessage(), e);
        }
        return this;
    }

    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            // stopping anyway
        }
        headerDeadline.close();
    }

    /** Marks a connection busy while a request is handled, so the header deadline does not apply to it. */
    private void track(Request request) {
        ConnectionMetaData meta = request.getConnectionMetaData();
        headerDeadline.requestStarted(meta.getConnection());
        Request.addCompletionListener(request, failure -> headerDeadline.requestEnded(meta.getConnection()));
    }

    /** A probe: a status and a short text, nothing else consulted. */
    private final class Text extends Handler.Abstract.NonBlocking {
        private final java.util.function.IntSupplier status;
        private final String text;

        Text(java.util.function.IntSupplier status, String text) {
            this.status = status;
            this.text = text;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            track(request);
            int s = status.getAsInt();
            String body = text != null ? text : s == 200 ? "ready\n" : "not ready\n";
            response.setStatus(s);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            response.write(true, "HEAD".equals(request.getMethod()) ? ByteBuffer.allocate(0)
                    : ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
    }

    /** Every other path: the pages, on a worker thread (they may block on Kafka or the identity provider). */
    private final class Pages extends Handler.Abstract {
        private final App app;
        private final long bodyTimeoutMs;

        Pages(App app, long bodyTimeoutMs) {
            this.app = app;
            this.bodyTimeoutMs = bodyTimeoutMs;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            track(request);
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
