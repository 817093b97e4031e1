package io.actiongate.runtime;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.net.ssl.SSLContext;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The HTTP server of every role (node API, approval service, MCP gateway): embedded Jetty 12 with the limits of
 * {@link HttpLimits}, set here once for every surface.
 *
 * <p>Slow and hostile clients: Jetty reads request heads without holding a thread; a {@link HeaderDeadline} closes
 * connections whose head does not complete within seconds (a client trickling one header byte at a time included);
 * the worker pool is bounded, so are the requests handled at once and those waiting for a turn (a
 * {@link QoSHandler}: 503 beyond), and so is the number of connections. The health probes are answered by their
 * own tiny non-blocking handlers before any application code and outside the turn limit: they never wait on the
 * application, Kafka or a slow client. Routes registered with {@link Builder#async} bypass the turn limit: their
 * handlers hold no thread while they wait (a long poll) and bound themselves.
 *
 * <p>TLS (optional): PEM material through {@link PemTls}; client certificates are asked for, not required, so
 * probes without one still answer, and {@link #clientCertificates} tells a handler whether the request brought a
 * verified one.
 */
public final class HttpSurface implements AutoCloseable {

    /**
     * The most of a body an answer did not read that is read and discarded after the answer, so the connection
     * neither carries a reset that loses the answer nor ends (1 MiB).
     */
    public static final long UNREAD_BODY_DRAINED_BYTES = 1 << 20;

    /** What a probe answers: a status, a content type and a short body. */
    public record ProbeAnswer(int status, String contentType, String body) {
        public static ProbeAnswer text(int status, String body) {
            return new ProbeAnswer(status, "text/plain; charset=utf-8", body);
        }
    }

    private final Server server;
    private final ServerConnector connector;
    private final HeaderDeadline headerDeadline;
    private final HttpLimits limits;
    private final String name;

    private HttpSurface(Builder b) {
        this.limits = b.limits;
        this.name = b.name;
        // Jetty's own selector and I/O tasks share this pool's queue, so the queue stays unbounded (Jetty warns and
        // may misbehave otherwise); requests are bounded by the QoSHandler below, connections by the limit
        QueuedThreadPool pool = new QueuedThreadPool(limits.maxThreads(), Math.min(4, limits.maxThreads()));
        pool.setName(b.name + "-http");
        pool.setDaemon(true);
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(16 * 1024);
        if (b.tls == null) {
            connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        } else {
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setSslContext(b.tls);
            // asked for, not required: /health/* must answer probes that bring no certificate; the surface decides
            // per path, and the trust manager rejects an untrusted certificate
            ssl.setWantClientAuth(b.wantClientCertificates);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false);
            http.addCustomizer(secure);
            connector = new ServerConnector(server, 1, 1, new SslConnectionFactory(ssl, "http/1.1"),
                    new HttpConnectionFactory(http));
        }
        connector.setHost(b.host);
        connector.setPort(b.port);
        connector.setIdleTimeout(limits.idleTimeoutMs());
        headerDeadline = new HeaderDeadline(b.name + "-http", limits.headerTimeoutMs());
        connector.addEventListener(new Connection.Listener() {
            @Override
            public void onOpened(Connection connection) {
                // under TLS the HTTP connection inside is what carries requests: time that one
                if (!(connection instanceof SslConnection)) {
                    headerDeadline.onOpened(connection);
                }
            }

            @Override
            public void onClosed(Connection connection) {
                headerDeadline.onClosed(connection);
            }
        });
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));

        PathMappingsHandler routes = new PathMappingsHandler();
        b.probes.forEach((path, probe) -> routes.addMapping(PathSpec.from(path), new Probe(probe)));
        b.async.forEach((path, handler) -> routes.addMapping(PathSpec.from(path), handler));
        if (b.app != null) {
            // at most threads - 4 requests at once (the acceptor, the selector and the probes keep theirs), at most
            // queue.max waiting for a turn, each for at most the body deadline; beyond that 503 at once
            QoSHandler turns = new QoSHandler(b.app);
            turns.setMaxRequestCount(limits.maxRequests());
            turns.setMaxSuspendedRequestCount(limits.maxQueued());
            turns.setMaxSuspend(Duration.ofMillis(limits.bodyTimeoutMs()));
            turns.setRejectStatusCode(503);
            routes.addMapping(PathSpec.from("/"), turns);
        }
        server.setHandler(new Tracked(routes));
        if (b.errors != null) {
            server.setErrorHandler(b.errors);
        } else {
            ErrorHandler errors = new ErrorHandler();
            errors.setShowStacks(false);
            errors.setShowMessageInTitle(false);
            server.setErrorHandler(errors);
        }
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Binds and starts; a failure closes everything and names the address. */
    public HttpSurface start() {
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot start the " + name + " HTTP server on " + connector.getHost()
                    + ":" + connector.getPort() + ": " + e.getMessage(), e);
        }
        return this;
    }

    /** The bound port (useful with port 0). */
    public int port() {
        return connector.getLocalPort();
    }

    public HttpLimits limits() {
        return limits;
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

    /** Whether {@code request} came over TLS with a client certificate the trust manager verified. */
    public static boolean clientCertificates(Request request) {
        if (request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE) instanceof EndPoint.SslSessionData ssl) {
            X509Certificate[] chain = ssl.peerCertificates();
            return chain != null && chain.length > 0;
        }
        return false;
    }

    /** Builds one surface; every limit not given is {@link HttpLimits#DEFAULTS}. */
    public static final class Builder {
        private final String name;
        private String host = "127.0.0.1";
        private int port;
        private HttpLimits limits = HttpLimits.DEFAULTS;
        private SSLContext tls;
        private boolean wantClientCertificates;
        private final Map<String, Supplier<ProbeAnswer>> probes = new LinkedHashMap<>();
        private final Map<String, Handler> async = new LinkedHashMap<>();
        private Handler app;
        private Request.Handler errors;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder bind(String bindHost, int bindPort) {
            this.host = Objects.requireNonNull(bindHost, "host");
            this.port = bindPort;
            return this;
        }

        public Builder limits(HttpLimits httpLimits) {
            this.limits = Objects.requireNonNull(httpLimits, "limits");
            return this;
        }

        /** HTTPS with {@code context}; {@code wantClientCertificates}: ask clients for a certificate (mTLS). */
        public Builder tls(SSLContext context, boolean wantClientCertificates) {
            this.tls = context;
            this.wantClientCertificates = wantClientCertificates;
            return this;
        }

        /**
         * A health probe at {@code path} (GET or HEAD, no credentials): answered before any other handler, outside
         * the turn limit, on one of the threads the turn limit keeps free. {@code probe} must be quick (at most a
         * short, cached check); a probe that throws answers 503.
         */
        public Builder probe(String path, Supplier<ProbeAnswer> probe) {
            probes.put(path, Objects.requireNonNull(probe, "probe"));
            return this;
        }

        /**
         * {@code handler} serves {@code pathSpec} outside the turn limit: it must hold no thread while it waits (it
         * answers from a callback later) and bound by itself how many wait.
         */
        public Builder async(String pathSpec, Handler handler) {
            async.put(pathSpec, Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /** Everything else: at most {@link HttpLimits#maxRequests} at once, {@link HttpLimits#maxQueued} waiting. */
        public Builder app(Handler handler) {
            this.app = handler;
            return this;
        }

        /** What answers errors Jetty raises itself (400, 404, 431, ...); default: a page without stack traces. */
        public Builder errorHandler(Request.Handler handler) {
            this.errors = handler;
            return this;
        }

        public HttpSurface build() {
            return new HttpSurface(this);
        }
    }

    /**
     * Marks a connection busy while a request is handled, so the header deadline does not apply to it, and lets no
     * answer end its connection over a body it did not read (see {@link DrainsUnreadBody}).
     */
    private final class Tracked extends Handler.Wrapper {
        Tracked(Handler routes) {
            super(routes);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            ConnectionMetaData meta = request.getConnectionMetaData();
            headerDeadline.requestStarted(meta.getConnection());
            Request.addCompletionListener(request, failure -> headerDeadline.requestEnded(meta.getConnection()));
            WatchesBody watched = new WatchesBody(request);
            SaysCloseOverUnreadBody answer = new SaysCloseOverUnreadBody(watched, response);
            return super.handle(watched, answer,
                    new DrainsUnreadBody(watched, answer, callback, limits.bodyTimeoutMs()));
        }
    }

    /** A request that knows whether its handler began to read its body. */
    private static final class WatchesBody extends Request.Wrapper {
        private volatile boolean touched;

        WatchesBody(Request wrapped) {
            super(wrapped);
        }

        @Override
        public Content.Chunk read() {
            touched = true;
            return super.read();
        }

        @Override
        public void demand(Runnable demandCallback) {
            touched = true;
            super.demand(demandCallback);
        }
    }

    /**
     * Whether what is left of {@code request}'s body, after an answer that did not read it, is read and discarded
     * before the exchange ends: a declared length of at most {@link #UNREAD_BODY_DRAINED_BYTES}, and no
     * {@code Expect: 100-continue} (such a client may never send the body it was not asked for).
     */
    private static boolean drained(Request request) {
        long length = request.getLength();
        return length >= 0 && length <= UNREAD_BODY_DRAINED_BYTES
                && !request.getHeaders().contains(HttpHeader.EXPECT, "100-continue");
    }

    /**
     * A response that, when it commits before the request's body was read to its end (a refusal that never looks at
     * the body: 401, 405, 404, a declared length over a limit), says {@code Connection: close} if what is left of
     * the body has not arrived and will not be drained after the answer ({@link #drained}): Jetty closes such a
     * connection, since it cannot find where the next request begins; a kept-alive client that was not told would
     * send its next request on a connection the server closes, and a POST is not retried. What has arrived is
     * discarded here.
     */
    private static final class SaysCloseOverUnreadBody extends Response.Wrapper {
        SaysCloseOverUnreadBody(Request request, Response wrapped) {
            super(request, wrapped);
        }

        @Override
        public void write(boolean last, ByteBuffer content, Callback callback) {
            // drained(...) first: Jetty's consumeAvailable() that finds the body incomplete ends the connection
            if (!isCommitted() && !getHeaders().contains(HttpHeader.CONNECTION, "close")
                    && !drained(getRequest()) && !getRequest().consumeAvailable()) {
                getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            super.write(last, content, callback);
        }
    }

    /**
     * The exchange's callback, which after an answer that left part of the body unread (and did not say the
     * connection closes) first reads that part and discards it: a body declared at most
     * {@link #UNREAD_BODY_DRAINED_BYTES} ({@link #drained}; Jetty delivers no more than the declared length), for at
     * most the body deadline, then the exchange ends. A client sends its whole body even when the answer comes first;
     * had the server closed with those bytes still arriving, its kernel would answer them with a reset, and a reset
     * discards the answer the client had not yet read (it sees a broken pipe, not the refusal). Drained, the
     * connection carries the next request; under an answer that says close, the client has its answer before the
     * connection ends. A body cut short, or late past the deadline, still ends the connection (Jetty's rule). A body
     * the handler began to read under an answer that says close (one that timed out while it was being read) is not
     * drained: the handler's read may still be pending.
     */
    private static final class DrainsUnreadBody implements Callback {
        /** The request itself, not its watcher: what is read here is not the handler's reading. */
        private final Request request;
        private final WatchesBody watched;
        private final Response response;
        private final Callback done;
        private final long deadlineMs;
        private boolean ended;
        private Scheduler.Task deadline;

        DrainsUnreadBody(WatchesBody watched, Response response, Callback done, long deadlineMs) {
            this.request = watched.getWrapped();
            this.watched = watched;
            this.response = response;
            this.done = done;
            this.deadlineMs = deadlineMs;
        }

        @Override
        public void succeeded() {
            if (drained(request)
                    && !(watched.touched && response.getHeaders().contains(HttpHeader.CONNECTION, "close"))) {
                drain();
            } else {
                done.succeeded();
            }
        }

        /** Reads what has arrived; only here, under this lock and before the end, is the body read. */
        private void drain() {
            synchronized (this) {
                if (ended) {
                    return;
                }
                try {
                    while (true) {
                        Content.Chunk chunk = request.read();
                        if (chunk == null) {
                            if (deadline == null) {
                                deadline = request.getComponents().getScheduler().schedule(this::endNow, deadlineMs,
                                        TimeUnit.MILLISECONDS);
                            }
                            request.demand(this::drain);
                            return;
                        }
                        chunk.release();
                        if (chunk.isLast() || Content.Chunk.isFailure(chunk)) {
                            break;
                        }
                    }
                } catch (RuntimeException e) {
                    // a read the handler left pending ("demand pending"): Jetty ends the exchange its own way
                }
                ended = true;
            }
            end();
        }

        private void endNow() {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
            }
            end();
        }

        /** Outside the lock: Jetty reads what is left itself (and ends the connection if it cannot). */
        private void end() {
            Scheduler.Task d;
            synchronized (this) {
                d = deadline;
            }
            if (d != null) {
                d.cancel();
            }
            done.succeeded();
        }

        @Override
        public void failed(Throwable x) {
            done.failed(x);
        }

        @Override
        public InvocationType getInvocationType() {
            return done.getInvocationType();
        }
    }

    /**
     * A probe: a status and a short body, nothing else consulted. It takes a pool thread (a probe may look at a
     * cached ping); the turn limit keeps 4 of the pool's threads free of application requests for this.
     */
    private static final class Probe extends Handler.Abstract {
        private final Supplier<ProbeAnswer> answer;

        Probe(Supplier<ProbeAnswer> answer) {
            this.answer = answer;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String method = request.getMethod();
            ProbeAnswer a;
            if (!"GET".equals(method) && !"HEAD".equals(method)) {
                response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
                a = ProbeAnswer.text(405, "method-not-allowed\n");
            } else {
                try {
                    a = answer.get();
                } catch (RuntimeException e) {
                    a = ProbeAnswer.text(503, "unready\n");
                }
            }
            byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
            response.setStatus(a.status());
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, a.contentType());
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
            response.write(true, "HEAD".equals(method) ? ByteBuffer.allocate(0) : ByteBuffer.wrap(body), callback);
            return true;
        }
    }
}
