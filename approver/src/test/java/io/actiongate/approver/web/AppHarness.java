package io.actiongate.approver.web;

import java.net.URI;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.actiongate.approver.TestIdp;
import io.actiongate.approver.book.ActionBook;
import io.actiongate.approver.decision.DecisionPublisher;
import io.actiongate.approver.decision.DecisionSink;
import io.actiongate.approver.decision.SigningKey;
import io.actiongate.approver.oidc.OidcClient;
import io.actiongate.policy.ApproverPolicy;
import io.actiongate.approver.review.ReviewBuilder;
import io.actiongate.approver.stepup.Passkeys;
import io.actiongate.approver.state.LocalState;
import io.actiongate.approver.state.SharedState;
import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.avro.Decision;

/** The approval app on a loopback port with an in-memory book and a recording decision sink. */
public final class AppHarness implements AutoCloseable {

    public final ActionBook book = new ActionBook();
    public final MutableClock clock = new MutableClock(Instant.now());
    /** The decisions topic's partition count the harness's sink reports (the contract's default). */
    public static final int PARTITIONS = 12;

    public final List<Decision> published = new CopyOnWriteArrayList<>();
    public final KeyPair keys;
    public final SharedState state;
    public final Sealer sealer;
    public final String origin;
    public final StepUpStore stepUps;
    private final ApproverHttpServer server;
    private volatile ApprovalApp app;

    public AppHarness(TestIdp idp) throws Exception {
        this(idp, new LocalState());
    }

    /** On the given shared state (two harnesses on one state are two replicas). */
    public AppHarness(TestIdp idp, SharedState state) throws Exception {
        this(idp, state, IdpStepUp.LOCAL);
    }

    /** With the given step-up mode. */
    public AppHarness(TestIdp idp, SharedState state, IdpStepUp stepUp) throws Exception {
        this(idp, state, stepUp, Sealer.random());
    }

    /** A replica of another harness: the same shared state and the same sealing keys (its cookies open here). */
    public AppHarness(TestIdp idp, SharedState state, IdpStepUp stepUp, Sealer sealer) throws Exception {
        this.state = state;
        this.sealer = sealer;
        keys = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        SigningKey key = SigningKey.of("approver-test", keys.getPrivate());
        server = new ApproverHttpServer("127.0.0.1", 0, HttpLimits.DEFAULTS, () -> true, ex -> app.handle(ex))
                .start();
        origin = "http://localhost:" + server.port();
        DecisionSink sink = new DecisionSink() {
            @Override
            public Decision publish(DecisionPublisher.Request r, Instant now) {
                Decision d = DecisionPublisher.signed(r, key, Duration.ofMinutes(10), now);
                published.add(d);
                return d;
            }

            @Override
            public int partitions() {
                return PARTITIONS;
            }
        };
        stepUps = new StepUpStore(state, sealer);
        OidcClient oidc = new OidcClient(URI.create(idp.issuer()), TestIdp.CLIENT_ID, null,
                URI.create(origin + "/oidc/callback"), "openid email", "org", sealer, clock);
        app = new ApprovalApp(new ApprovalApp.Deps(origin, "localhost", book,
                new ReviewBuilder(ApproverPolicy.parse(List.of()), Map.of("smtp", "assistant@example.com"),
                        Duration.ofMinutes(30)),
                new Sessions(state, sealer, Duration.ofMinutes(15), Duration.ofHours(8), clock),
                new Challenges(state, Duration.ofMinutes(5), clock), oidc, stepUps,
                new Passkeys(origin, "localhost"), sink, Duration.ofMinutes(5), clock, () -> true, stepUp));
    }

    public String url(String path) {
        return origin + path;
    }

    @Override
    public void close() {
        server.close();
    }
}
