package io.actiongate.approver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.book.ActionBook;
import io.actiongate.approver.book.BookFeed;
import io.actiongate.approver.decision.DecisionPublisher;
import io.actiongate.approver.decision.SigningKey;
import io.actiongate.approver.oidc.OidcClient;
import io.actiongate.policy.ApproverPolicy;
import io.actiongate.approver.review.ReviewBuilder;
import io.actiongate.approver.stepup.Passkeys;
import io.actiongate.approver.state.KafkaState;
import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.approver.web.ApprovalApp;
import io.actiongate.approver.web.ApproverHttpServer;
import io.actiongate.approver.web.Challenges;
import io.actiongate.approver.web.Sealer;
import io.actiongate.approver.web.Sessions;
import io.actiongate.runtime.Shutdown;

/**
 * The approval service (role {@code approver}, docs/contract.md section 1): the feed that keeps the latest proposal
 * and receipt of every action, the web pages, and the signer-publisher of decisions. {@link #start} brings it all up
 * or nothing; {@link #close} stops it in reverse order.
 */
public final class ApproverService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ApproverService.class);

    private final Shutdown started = new Shutdown("the approval service");
    private ApproverConfig config;
    private BookFeed feed;
    private ApproverHttpServer http;
    private StepUpStore stepUps;
    private KafkaState state;

    private ApproverService() {
    }

    /** Starts from the flat configuration map (README, "Approval service"). */
    public static ApproverService start(Map<String, String> raw) {
        return start(ApproverConfig.from(raw), Clock.systemUTC());
    }

    public static ApproverService start(ApproverConfig config, Clock clock) {
        ApproverService s = new ApproverService();
        try {
            s.startAll(config, clock);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void startAll(ApproverConfig c, Clock clock) {
        SigningKey key;
        try {
            key = SigningKey.read(c.signingKeyId(), c.signingKeyFile());
        } catch (IOException e) {
            throw new UncheckedIOException(ApproverConfig.SIGNING_KEY_FILE + ": " + e.getMessage(), e);
        }
        ActionBook book = new ActionBook();
        feed = new BookFeed(c.bootstrapServers(), c.kafkaClient(), c.topicPrefix(), book).start();
        started.push(feed);
        DecisionPublisher publisher = new DecisionPublisher(c.bootstrapServers(), c.kafkaClient(), c.topicPrefix(),
                key, c.decisionTtl());
        started.push(publisher);

        Sealer sealer;
        if (c.stateKeyFile().isPresent()) {
            try {
                sealer = Sealer.fromFile(c.stateKeyFile().get());
            } catch (IOException e) {
                throw new UncheckedIOException(ApproverConfig.STATE_KEY_FILE + ": " + e.getMessage(), e);
            }
        } else {
            sealer = Sealer.random();
            LOG.warn("{} is not set: sessions and sealed one-time code secrets use a key of this process only "
                    + "(one replica; after a restart people sign in and set up their code app again)",
                    ApproverConfig.STATE_KEY_FILE);
        }
        state = new KafkaState(c.bootstrapServers(), c.kafkaClient(), c.stateTopic());
        started.push(state);
        Sessions sessions = new Sessions(state, sealer, c.sessionIdle(), c.sessionMax(), clock);
        Challenges challenges = new Challenges(state, c.challengeTtl(), clock);
        stepUps = new StepUpStore(state, sealer);
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "approver-sweeper");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                sessions.sweep();
                challenges.sweep();
            } catch (RuntimeException e) {
                LOG.warn("sweeping the approver state failed (retried in a minute): {}", e.toString());
            }
        }, 1, 1, TimeUnit.MINUTES);
        started.push(sweeper::shutdownNow);

        // with port 0 the public URL is only known after binding; a deferred app reads the final config
        DeferredApp deferred = new DeferredApp();
        http = new ApproverHttpServer(c.bindAddress(), c.port(), c.httpLimits(), this::ready, deferred);
        // bound (and answering 503 to pages) before the app exists: with port 0 the public URL needs the port
        http.start();
        started.push(http);
        ApproverConfig effective = c.publicUrl().getPort() == 0 ? c.withPublicPort(http.port()) : c;
        this.config = effective;
        OidcClient oidc = new OidcClient(effective.oidcIssuer(), effective.oidcClientId(),
                effective.oidcClientSecret().orElse(null), URI.create(effective.origin() + "/oidc/callback"),
                effective.oidcScopes(), effective.oidcOrgClaim(), sealer, clock);
        ReviewBuilder reviews = new ReviewBuilder(ApproverPolicy.parse(effective.approvers()),
                effective.senderAccounts(), effective.approvalWait());
        deferred.set(new ApprovalApp(new ApprovalApp.Deps(effective.origin(), effective.rpId(), book, reviews,
                sessions, challenges, oidc, stepUps, new Passkeys(effective.origin(), effective.rpId()), publisher,
                effective.enrolWindow(), clock, this::ready, effective.stepUp())));
        LOG.info("approval service on {} (bound {}:{}), issuer {}, signing key {}", effective.origin(),
                c.bindAddress(), http.port(), effective.oidcIssuer(), key.keyId());
    }

    /** Ready once the feed has read every topic up to where it stood at start. */
    public boolean ready() {
        return feed != null && feed.isRunning() && feed.isCaughtUp() && state != null && state.isRunning()
                && state.isCaughtUp();
    }

    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return feed.awaitCaughtUp(timeout) && feed.isRunning() && state.awaitCaughtUp(timeout)
                && state.isRunning();
    }

    /** Why the service stopped on its own, or null. */
    public Throwable failure() {
        if (state != null && state.failure() != null) {
            return state.failure();
        }
        return feed == null ? null : feed.failure();
    }

    public int port() {
        return http.port();
    }

    /** The public URL after binding (the bound port when the configured one was 0). */
    public URI publicUrl() {
        return config.publicUrl();
    }

    public ApproverConfig config() {
        return config;
    }

    @Override
    public void close() {
        started.close();
    }

    private static final class DeferredApp implements ApproverHttpServer.App {
        private volatile ApprovalApp app;

        void set(ApprovalApp a) {
            app = a;
        }

        @Override
        public void handle(io.actiongate.approver.web.Exchange exchange) throws IOException {
            ApprovalApp a = app;
            if (a == null) {
                exchange.send(503, "text/plain; charset=utf-8", new byte[0]);
                return;
            }
            a.handle(exchange);
        }
    }
}
