package io.actiongate.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The HTTP surface of one gate instance (docs/contract.md section 7) on the JDK's HTTP server:
 * {@code GET /v1/actions/{task_id}/{tool_call_id}} (with {@code ?wait=} a long poll), {@code POST /v1/proposals}
 * (when {@link #withProposals} was given), {@code /v1/openapi.json}, {@code /metrics}, {@code /health/live},
 * {@code /health/ready}.
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
    private ProposalApi proposals;
    private ProposalApiConfig waitLimits;
    private AsyncAnswers answers;

    static {
        RequestTimeouts.apply();
    }

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

    /**
     * Serves {@code POST /v1/proposals} from {@code api} too, and lets its tool hosts read their org's actions.
     * Call before {@link #start}. Returns {@code this}.
     */
    public synchronized GateHttpServer withProposals(ProposalApi api) {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        this.proposals = Objects.requireNonNull(api, "api");
        return this;
    }

    /**
     * The limits of long polls ({@code http.actions.max.wait.ms}, {@code http.actions.max.waiters}) when no
     * {@link #withProposals} gives them. Call before {@link #start}. Returns {@code this}.
     */
    public synchronized GateHttpServer withWaitLimits(ProposalApiConfig limits) {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        this.waitLimits = Objects.requireNonNull(limits, "limits");
        return this;
    }

    /** Binds and starts serving. Returns {@code this}. */
    public synchronized GateHttpServer start() {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        HttpSecurity security = config.security();
        SSLContext tls = security.tls() ? PemTls.context(security) : null;
        BearerTokens tokens = security.tokensFile() == null ? null : new BearerTokens(security.tokensFile());
        HttpServer created;
        try {
            InetSocketAddress address = new InetSocketAddress(config.bindAddress(), config.port());
            if (tls == null) {
                created = HttpServer.create(address, 0);
            } else {
                HttpsServer https = HttpsServer.create(address, 0);
                https.setHttpsConfigurator(new HttpsConfigurator(tls) {
                    @Override
                    public void configure(HttpsParameters params) {
                        SSLParameters parameters = tls.getDefaultSSLParameters();
                        // asked for, not required: /health/* must answer probes that bring no certificate; the
                        // filter decides per path, and the trust manager rejects an untrusted certificate
                        parameters.setWantClientAuth(security.clientCertificates());
                        params.setSSLParameters(parameters);
                    }
                });
                created = https;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind HTTP on " + config.bindAddress() + ":" + config.port(), e);
        }
        executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                daemonThreads(), new ThreadPoolExecutor.CallerRunsPolicy());
        executor.allowCoreThreadTimeOut(true);
        created.setExecutor(executor);
        AuthFilter auth = new AuthFilter(tokens, security.clientCertificates());
        ProposalApiConfig waits = proposals != null ? proposals.config()
                : waitLimits != null ? waitLimits : new ProposalApiConfig(java.util.Map.of());
        answers = new AsyncAnswers(waits.maxWaiters());
        // an org's token, a node token or a tool host's, sees only its org's actions, waiting or not
        ProposalApi hostTokens = proposals;
        HttpContext v1 = created.createContext(ActionsHandler.PREFIX, new ActionWaitHandler(
                new ActionsHandler(actions, tls, auth::callerOrg),
                exchange -> hostTokens == null ? java.util.Optional.empty()
                        : HostIdentityFilter.identity(hostTokens, exchange),
                auth::callerOrg, actions, answers, waits.maxWait(), tls));
        HttpContext metrics = created.createContext(MetricsHandler.PATH, new MetricsHandler(registry));
        created.createContext(OpenApiHandler.PATH, new OpenApiHandler());
        if (proposals != null) {
            // the handler authenticates the tool host itself: its identity is the proposal's
            created.createContext(ProposalsHandler.PATH, new ProposalsHandler(proposals, answers));
            v1.getFilters().add(new HostIdentityFilter(proposals, security.required() ? auth : null));
        }
        if (security.required()) {
            if (proposals == null) {
                v1.getFilters().add(auth);
            }
            if (security.metrics()) {
                metrics.getFilters().add(auth);
            }
            if (!security.anyCredential()) {
                LOG.warn("no {} and no {}: every /v1 request is refused (set {}=false only on a trusted network)",
                        HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, HttpServerConfig.HTTP_TLS_CLIENT_CA_FILE_CONFIG,
                        HttpServerConfig.HTTP_AUTH_REQUIRED_CONFIG);
            }
        } else {
            LOG.warn("{}=false: /v1 answers anyone who reaches {}:{}", HttpServerConfig.HTTP_AUTH_REQUIRED_CONFIG,
                    config.bindAddress(), config.port());
        }
        created.createContext(HealthHandler.LIVE, new HealthHandler(ready));
        created.createContext(HealthHandler.READY, new HealthHandler(ready));
        created.start();
        server = created;
        LOG.info("HTTP{} surface listening on {}:{} (/v1: {}; /metrics: {})", tls == null ? "" : "S",
                config.bindAddress(), port(), describe(security, tokens),
                security.required() && security.metrics() ? "same credentials" : "open");
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
        answers.close();
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

    private static String describe(HttpSecurity security, BearerTokens tokens) {
        if (!security.required()) {
            return "open";
        }
        List<String> accepted = new ArrayList<>();
        if (tokens != null) {
            accepted.add(tokens.size() + " bearer token(s)");
        }
        if (security.clientCertificates()) {
            accepted.add("client certificates");
        }
        return accepted.isEmpty() ? "refused (no credential configured)" : String.join(" or ", accepted);
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
