package io.actiongate.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import javax.net.ssl.SSLContext;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.mcp.HostIdentity;
import io.actiongate.runtime.BearerTokens;
import io.actiongate.runtime.HttpSurface;
import io.actiongate.runtime.PemTls;

/**
 * The HTTP surface of one gate instance (docs/contract.md section 7) on the runtime's Jetty ({@link HttpSurface}):
 * {@code GET /v1/actions/{task_id}/{tool_call_id}} (with {@code ?wait=} a long poll), {@code POST /v1/proposals}
 * (when {@link #withProposals} was given), {@code /v1/openapi.json}, {@code /metrics}, {@code /health/live},
 * {@code /health/ready}. The limits for slow and hostile clients are the runtime's ({@code http.threads.max},
 * {@code http.header.timeout.ms}, ...); the probes always answer; {@code /v1/actions} and {@code /v1/proposals} hold
 * no thread while they wait (bounded by {@code http.actions.max.waiters}), the rest takes turns.
 */
public final class GateHttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GateHttpServer.class);

    private final HttpServerConfig config;
    private final ActionStateQuery actions;
    private final PrometheusRegistry registry;
    private final BooleanSupplier ready;
    private HttpSurface server;
    private ProposalApi proposals;
    private ProposalApiConfig waitLimits;
    private ReceiptFeed receipts;
    private AsyncAnswers answers;

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
     * Long polls wake on {@code feed}'s receipts (tests; a node gives the receipts its {@link #withProposals} client
     * reads). Call before {@link #start}. Returns {@code this}.
     */
    synchronized GateHttpServer withReceipts(ReceiptFeed feed) {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        this.receipts = Objects.requireNonNull(feed, "feed");
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
        SSLContext tls = security.tls()
                ? PemTls.context(security.certificateFile(), security.keyFile(), security.clientCaFile()) : null;
        BearerTokens<NodeAuth.Caller> tokens = security.tokensFile() == null ? null
                : NodeAuth.tokens(security.tokensFile());
        NodeAuth auth = new NodeAuth(tokens, security.clientCertificates());
        ProposalApiConfig waits = proposals != null ? proposals.config()
                : waitLimits != null ? waitLimits : new ProposalApiConfig(java.util.Map.of());
        AsyncAnswers pending = new AsyncAnswers(waits.maxWaiters());
        // an org's token, a node token or a tool host's, sees only its org's actions, waiting or not
        ProposalApi hostTokens = proposals;
        java.util.function.Function<HttpCall, Optional<HostIdentity>> hosts =
                call -> hostTokens == null ? Optional.empty() : call.host(hostTokens::hostOf);
        // long polls wake on the committed receipts the proposals' client reads anyway; without it they re-read
        ReceiptFeed feed = receipts != null ? receipts : hostTokens == null ? ReceiptFeed.NONE : hostTokens::watch;
        CallHandler waitOrRead = new ActionWaitHandler(new ActionsHandler(actions, tls, auth::callerOrg), hosts,
                auth::callerOrg, actions, pending, feed, waits.maxWait(), tls);
        boolean required = security.required();
        // a tool host's token passes (the handler limits the answer to its org); anyone else needs the node's
        // credentials, unless /v1 is open
        CallHandler v1 = call -> {
            if (!required || hosts.apply(call).isPresent() || auth.admit(call)) {
                waitOrRead.handle(call);
            } else {
                call.close();
            }
        };
        CallHandler metrics = new MetricsHandler(registry);
        CallHandler guardedMetrics = required && security.metrics()
                ? call -> {
                    if (auth.admit(call)) {
                        metrics.handle(call);
                    } else {
                        call.close();
                    }
                } : metrics;
        OpenApiHandler openApi = new OpenApiHandler();
        CallHandler others = call -> {
            String path = call.rawPath();
            if (MetricsHandler.PATH.equals(path)) {
                guardedMetrics.handle(call);
            } else if (OpenApiHandler.PATH.equals(path)) {
                openApi.handle(call);
            } else {
                try (call) {
                    Responses.json(call, 404, HttpJson.error("not_found", "no such resource"));
                }
            }
        };
        HttpSurface.Builder surface = HttpSurface.builder("actiongate")
                .bind(config.bindAddress(), config.port())
                .limits(config.limits())
                .probe("/health/live", () -> HttpSurface.ProbeAnswer.text(200, "live\n"))
                .probe("/health/ready", () -> ready.getAsBoolean() ? HttpSurface.ProbeAnswer.text(200, "ready\n")
                        : HttpSurface.ProbeAnswer.text(503, "unready\n"))
                .async(ActionsHandler.PREFIX + "*", new Calls(v1))
                .app(new Calls(others));
        if (tls != null) {
            surface.tls(tls, security.clientCertificates());
        }
        if (proposals != null) {
            // the handler authenticates the tool host itself: its identity is the proposal's
            surface.async(ProposalsHandler.PATH,
                    new Calls(new ProposalsHandler(proposals, pending, config.limits().bodyTimeoutMs())));
        }
        if (required) {
            if (!security.anyCredential()) {
                LOG.warn("no {} and no {}: every /v1 request is refused (set {}=false only on a trusted network)",
                        HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, HttpServerConfig.HTTP_TLS_CLIENT_CA_FILE_CONFIG,
                        HttpServerConfig.HTTP_AUTH_REQUIRED_CONFIG);
            }
        } else {
            LOG.warn("{}=false: /v1 answers anyone who reaches {}:{}", HttpServerConfig.HTTP_AUTH_REQUIRED_CONFIG,
                    config.bindAddress(), config.port());
        }
        try {
            server = surface.build().start();
        } catch (RuntimeException e) {
            pending.close();
            throw e;
        }
        answers = pending;
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
        return server.port();
    }

    @Override
    public synchronized void close() {
        if (server == null) {
            return;
        }
        server.close();
        answers.close();
        server = null;
        LOG.info("HTTP surface stopped");
    }

    private static String describe(HttpSecurity security, BearerTokens<?> tokens) {
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

    /** A Jetty handler over one {@link CallHandler}: one {@link HttpCall} per request, never shared. */
    private static final class Calls extends Handler.Abstract {
        private final CallHandler handler;

        Calls(CallHandler handler) {
            this.handler = handler;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            HttpCall call = new HttpCall(request, response, callback);
            try {
                handler.handle(call);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot answer {} {}: {}", call.method(), Echo.forLog(call.rawPath()), e.getClass().getName());
                call.close();
            }
            return true;
        }
    }
}
