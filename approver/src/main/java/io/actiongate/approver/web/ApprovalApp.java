package io.actiongate.approver.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.book.ActionBook;
import io.actiongate.approver.decision.DecisionPublisher;
import io.actiongate.approver.decision.DecisionSink;
import io.actiongate.approver.oidc.OidcClient;
import io.actiongate.approver.review.Identity;
import io.actiongate.approver.review.Refusal;
import io.actiongate.approver.review.Review;
import io.actiongate.approver.review.ReviewBuilder;
import io.actiongate.approver.stepup.Passkeys;
import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;

/**
 * The approval service's pages and form posts. Every POST passes the same gate first: a live server-side session,
 * an {@code Origin} header equal to the service's public origin, and the session's anti-forgery token. A decision
 * post then consumes its single-use review challenge, rebuilds the review from what the service knows now, checks
 * that it is still the digest the challenge was issued for, verifies the step-up over that challenge, and only then
 * signs and publishes. Every refusal is one audit log line (logger {@code io.actiongate.approver.audit}) without
 * input bodies.
 */
public final class ApprovalApp implements ApproverHttpServer.App {

    private static final Logger LOG = LoggerFactory.getLogger(ApprovalApp.class);

    public static final String SESSION_COOKIE = "__Host-ag_session";
    public static final String LOGIN_COOKIE = "__Host-ag_login";
    /** A step-up through the identity provider in flight (sealed, SameSite=Lax: it must come back from the IdP). */
    public static final String STEPUP_COOKIE = "__Host-ag_stepup";
    public static final String APPROVE_LABEL = "Approve this exact action for one dispatch attempt";
    public static final String CANCEL_LABEL = "Cancel \u2014 do not send";

    /** The dependencies the app serves from. */
    public record Deps(String origin, String rpId, ActionBook book, ReviewBuilder reviews, Sessions sessions,
                       Challenges challenges, OidcClient oidc, StepUpStore stepUps, Passkeys passkeys,
                       DecisionSink decisions, Duration enrolWindow, Clock clock, BooleanSupplier ready,
                       IdpStepUp idp) {
    }

    private final Deps d;
    private final PageKit kit = new PageKit();
    private final SignIn signIn;
    private final StepUpEnrolment enrolment;
    private final StepUpCheck stepUpCheck;
    /** Actions this instance already published a decision for, by key, digest and kind. */
    private final ConcurrentHashMap<String, String> decided = new ConcurrentHashMap<>();

    /** The pages served before any session check: static files and the sign-in flow. */
    private final RouteTable open;
    /** The pages behind the session check (a GET without a session is sent to sign in, a POST is guarded). */
    private final RouteTable signedIn;

    public ApprovalApp(Deps deps) {
        this.d = deps;
        this.signIn = new SignIn(deps, kit);
        this.stepUpCheck = new StepUpCheck(deps);
        this.enrolment = new StepUpEnrolment(deps, kit, stepUpCheck);
        this.open = RouteTable.builder()
                .prefix(RouteTable.Method.GET, "/static/", (ex, session, path) -> staticFile(ex, path))
                .exact(RouteTable.Method.GET, "/login", (ex, session, path) -> signIn.login(ex))
                .exact(RouteTable.Method.GET, "/oidc/callback", (ex, session, path) -> signIn.callback(ex, this))
                .build();
        this.signedIn = RouteTable.builder()
                .exact(RouteTable.Method.GET, "/", (ex, session, path) -> queue(ex, session))
                .exact(RouteTable.Method.GET, "/queue", (ex, session, path) -> queue(ex, session))
                .exact(RouteTable.Method.POST, "/logout", (ex, session, path) -> logout(ex, session))
                .prefix(RouteTable.Method.ANY, "/review/",
                        (ex, session, path) -> action(ex, session, path, ReviewBuilder.Kind.APPROVAL))
                .prefix(RouteTable.Method.ANY, "/resolve/",
                        (ex, session, path) -> action(ex, session, path, ReviewBuilder.Kind.RESOLUTION))
                .exact(RouteTable.Method.GET, "/stepup",
                        (ex, session, path) -> enrolment.page(ex, session, null, null, false))
                .exact(RouteTable.Method.POST, "/stepup/confirm",
                        (ex, session, path) -> enrolment.confirmExisting(ex, session))
                .exact(RouteTable.Method.POST, "/stepup/passkey",
                        (ex, session, path) -> enrolment.registerPasskey(ex, session))
                .exact(RouteTable.Method.POST, "/stepup/totp", (ex, session, path) -> enrolment.beginTotp(ex, session))
                .exact(RouteTable.Method.POST, "/stepup/totp/confirm",
                        (ex, session, path) -> enrolment.confirmTotp(ex, session))
                .build();
    }

    @Override
    public void handle(Exchange ex) {
        try {
            route(ex);
        } catch (Exchange.BodyException e) {
            LOG.info("request {} {} refused: {}", ex.method(), PageKit.input(ex.path()), e.getMessage());
            answerFailure(ex, e.status(), "The request could not be read", e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.warn("request {} {} failed: {}", ex.method(), PageKit.input(ex.path()), e.toString());
            answerFailure(ex, 500, "Something went wrong", null);
        }
    }

    private void answerFailure(Exchange ex, int status, String title, String problem) {
        if (ex.sent()) {
            return; // the response had started already
        }
        try {
            ex.html(status, kit.message(null, title, problem, "Nothing was published.", null));
        } catch (IOException | RuntimeException ignored) {
            // the connection is gone
        }
    }

    private void route(Exchange ex) throws IOException {
        String path = ex.path();
        String method = ex.method();
        RouteTable.Route open = this.open.find(method, path).orElse(null);
        if (open != null) {
            open.handler().serve(ex, null, path);
            return;
        }
        Session session = d.sessions().find(ex.cookie(SESSION_COOKIE)).orElse(null);
        if (session != null && d.sessions().needsSealing(session)) {
            // the session lives sealed in its cookie: an extended one goes back (its changing values do not: they
            // are in the shared state, so concurrent answers cannot overwrite each other's)
            ex.beforeSend(() -> ex.setCookie(SESSION_COOKIE, d.sessions().seal(session), Exchange.SameSite.STRICT,
                    -1));
        }
        if (RouteTable.Method.GET.accepts(method) && session == null) {
            ex.redirect("/login?return=" + java.net.URLEncoder.encode(path, StandardCharsets.UTF_8));
            return;
        }
        if (RouteTable.Method.POST.accepts(method)) {
            Refusal r = guardPost(ex, session);
            if (r != null) {
                PageKit.audit(r, ex, session, path, null);
                ex.html(r == Refusal.SESSION_INVALID ? 401 : 403, kit.message(session, "Refused", r.message(), null,
                        PageKit.link("/queue", "Back to the queue")));
                return;
            }
        }
        RouteTable.Route route = signedIn.find(method, path).orElse(null);
        if (route == null) {
            ex.html(404, kit.message(session, "Not found", null, null, PageKit.link("/queue", "Queue")));
        } else {
            route.handler().serve(ex, session, path);
        }
    }

    private void staticFile(Exchange ex, String path) throws IOException {
        String name = path.substring("/static/".length());
        byte[] body = Pages.staticFile(name);
        if (body == null) {
            ex.html(404, kit.message(null, "Not found", null, null, null));
        } else {
            ex.send(200, name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8", body);
        }
    }

    private void logout(Exchange ex, Session session) throws IOException {
        d.sessions().end(session);
        ex.beforeSend(() -> ex.clearCookie(SESSION_COOKIE, Exchange.SameSite.STRICT));
        ex.html(200, kit.message(null, "Signed out", null, "You are signed out.", PageKit.link("/login", "Sign in")));
    }

    /** {@code /review/KEY} (an approval) and {@code /resolve/KEY} (an owner's resolution): GET shows, POST decides. */
    private void action(Exchange ex, Session session, String path, ReviewBuilder.Kind kind) throws IOException {
        String rest = path.substring(kind == ReviewBuilder.Kind.APPROVAL ? "/review/".length() : "/resolve/".length());
        String key = actionKey(rest);
        boolean get = RouteTable.Method.GET.accepts(ex.method());
        if (key == null || !(get || RouteTable.Method.POST.accepts(ex.method()))) {
            ex.html(404, kit.message(session, "Not found", null, "No such action.", PageKit.link("/queue", "Queue")));
            return;
        }
        if (get) {
            review(ex, session, key, kind, path);
        } else {
            decide(ex, session, key, kind, path);
        }
    }

    /** The checks every form post passes before anything else: session, origin, anti-forgery token. */
    private Refusal guardPost(Exchange ex, Session session) throws IOException {
        if (session == null) {
            return Refusal.SESSION_INVALID;
        }
        String origin = ex.header("Origin");
        String fetchSite = ex.header("Sec-Fetch-Site");
        if (origin == null || !origin.equals(d.origin()) || (fetchSite != null && !fetchSite.equals("same-origin"))) {
            PageKit.AUDIT.info("origin check: Origin={} Sec-Fetch-Site={} expected {}", PageKit.input(origin),
                    PageKit.input(fetchSite),
                    d.origin());
            return Refusal.ORIGIN_REFUSED;
        }
        if (!Tokens.same(ex.field("csrf"), session.csrf())) {
            return Refusal.FORM_TAMPERED;
        }
        return null;
    }

    private static String actionKey(String rest) {
        return ActionKey.tryParse(rest).map(ActionKey::toString).orElse(null);
    }

    // ---- queue ----------------------------------------------------------------------------------------------

    /**
     * The org's queue: waiting actions soonest deadline first with the time left, then the actions whose outcome is
     * unknown; both filterable by tool and by requester (the proposal's principal), the choices being those present.
     */
    private void queue(Exchange ex, Session s) throws IOException {
        Instant now = d.clock().instant();
        String org = s.identity().org();
        String toolFilter = blankToNull(ex.query("tool"));
        String requesterFilter = blankToNull(ex.query("requester"));
        java.util.SortedSet<String> tools = new java.util.TreeSet<>();
        java.util.SortedSet<String> requesters = new java.util.TreeSet<>();
        List<ActionBook.Entry> waitingEntries = d.book().byStatus(org, ReceiptStatus.WAITING_APPROVAL);
        List<ActionBook.Entry> unknownEntries = d.book().byStatus(org, ReceiptStatus.UNKNOWN);
        for (List<ActionBook.Entry> list : List.of(waitingEntries, unknownEntries)) {
            for (ActionBook.Entry e : list) {
                tools.add(tool(e));
                requesters.add(requester(e));
            }
        }
        java.util.function.Predicate<ActionBook.Entry> shown = e -> (toolFilter == null || toolFilter.equals(tool(e)))
                && (requesterFilter == null || requesterFilter.equals(requester(e)));
        List<Map<String, Object>> waiting = new ArrayList<>();
        waitingEntries.stream().filter(shown)
                .sorted(java.util.Comparator.comparing((ActionBook.Entry e) -> d.reviews().deadline(e.receipt()))
                        .thenComparing(ActionBook.Entry::key))
                .forEach(e -> {
                    Instant deadline = d.reviews().deadline(e.receipt());
                    Map<String, Object> row = row(e, ReviewBuilder.human(Duration.between(now, deadline)));
                    row.put("deadline", deadline.toString());
                    row.put("urgent", Duration.between(now, deadline).compareTo(Duration.ofMinutes(15)) < 0);
                    waiting.add(row);
                });
        List<Map<String, Object>> unknown = new ArrayList<>();
        unknownEntries.stream().filter(shown).forEach(e -> {
            Map<String, Object> row = row(e, null);
            row.put("attempts", e.receipt().getAttempts().size());
            unknown.add(row);
        });
        Map<String, Object> m = kit.base(s, "Queue");
        m.put("waiting", waiting);
        m.put("hasWaiting", !waiting.isEmpty());
        m.put("unknown", unknown);
        m.put("hasUnknown", !unknown.isEmpty());
        m.put("tools", options(tools, toolFilter));
        m.put("requesters", options(requesters, requesterFilter));
        m.put("filtered", toolFilter != null || requesterFilter != null);
        ex.html(200, kit.pages.render("queue", m));
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v;
    }

    private static List<Map<String, Object>> options(java.util.SortedSet<String> values, String selected) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String v : values) {
            out.add(Map.of("value", v, "selected", v.equals(selected)));
        }
        return out;
    }

    private static String tool(ActionBook.Entry e) {
        return e.receipt().getProvider() + " / " + e.receipt().getToolName();
    }

    /** Who the action was requested for: the frozen proposal's principal ("unknown" before it is read). */
    private static String requester(ActionBook.Entry e) {
        io.actiongate.avro.ActionProposal p = e.proposal();
        return p == null ? "unknown" : p.getPrincipalId();
    }

    private static Map<String, Object> row(ActionBook.Entry e, String timeLeft) {
        ActionKey k = ActionKey.parse(e.key());
        Map<String, Object> row = new HashMap<>();
        row.put("key", e.key());
        row.put("taskId", k.taskId());
        row.put("toolCallId", k.toolCallId());
        row.put("tool", tool(e));
        row.put("requester", requester(e));
        row.put("since", e.receipt().getUpdatedAt().toString());
        row.put("timeLeft", timeLeft);
        return row;
    }

    // ---- review and decide ----------------------------------------------------------------------------------

    private Review build(String key, Session s, ReviewBuilder.Kind kind) {
        return d.reviews().build(key, d.book().get(key).orElse(null), s.identity(), kind, d.clock().instant());
    }

    private void review(Exchange ex, Session s, String key, ReviewBuilder.Kind kind, String path) throws IOException {
        Review review = build(key, s, kind);
        boolean approval = kind == ReviewBuilder.Kind.APPROVAL;
        if (review.decidable() && decided.containsKey(decidedKey(key, review.actionDigest(), kind))) {
            review = withRefusal(review, Refusal.ALREADY_DECIDED);
        }
        Challenges.Challenge c = review.decidable()
                ? d.challenges().issue(s.id(), s.identity().subject(), key, review.actionDigest()) : null;
        if (review.decidable() && c == null) {
            review = withRefusal(review, Refusal.TOO_MANY_OPEN_FORMS);
        }
        Map<String, Object> m = kit.base(s, approval ? "Review" : "Resolve");
        m.put("heading", approval ? "Review one frozen action" : "Resolve an action whose outcome is unknown");
        m.put("review", review);
        m.put("approval", approval);
        m.put("action", path);
        m.put("hasAttachments", !review.attachments().isEmpty());
        m.put("attempts", !approval || !review.attempts().isEmpty());
        if (review.decidable()) {
            String org = s.identity().org();
            String subject = s.identity().subject();
            m.put("challenge", c.id());
            m.put("challengeExpiry", c.expiresAt().toString());
            m.put("rpId", d.rpId());
            if (d.idp().enabled()) {
                m.put("credentials", "");
                m.put("hasTotp", false);
                m.put("hasStepUp", true);
                m.put("idpStepUp", true);
            } else {
                m.put("credentials", d.stepUps().passkeys(org, subject).stream().map(StepUpStore.Passkey::id)
                        .collect(Collectors.joining(",")));
                m.put("hasTotp", d.stepUps().hasTotp(org, subject));
                m.put("hasStepUp", d.stepUps().hasAny(org, subject));
            }
            m.put("buttons", approval
                    ? List.of(button("APPROVE", "approve", APPROVE_LABEL, true),
                              button("REJECT", "cancel", CANCEL_LABEL, false))
                    : List.of(button("RESOLVE_EFFECT_CONFIRMED", "confirm-effect",
                                      "The effect happened: record RESOLVE_EFFECT_CONFIRMED", true),
                              button("RESOLVE_NO_EFFECT", "confirm-no-effect",
                                      "The effect did not happen: record RESOLVE_NO_EFFECT", true)));
        } else {
            for (Refusal r : review.refusals()) {
                PageKit.audit(r, ex, s, key, review.actionDigest());
            }
        }
        ex.html(200, kit.pages.render("review", m));
    }

    private static Map<String, Object> button(String value, String id, String label, boolean stepUp) {
        return Map.of("value", value, "id", id, "label", label, "stepUp", stepUp);
    }

    private static Review withRefusal(Review r, Refusal extra) {
        List<Refusal> all = new ArrayList<>(r.refusals());
        all.add(extra);
        return new Review(r.key(), r.taskId(), r.toolCallId(), r.status(), r.org(), r.provider(), r.senderAccount(),
                r.operation(), r.toolName(), r.email(), r.inputJson(), r.summary(), r.sources(), r.attachments(),
                r.inputDigest(), r.actionDigest(), r.waitingSince(), r.timeLeft(), r.attempts(), all,
                r.conflictRefused());
    }

    private void decide(Exchange ex, Session s, String key, ReviewBuilder.Kind kind, String path) throws IOException {
        String decisionField = ex.field("decision");
        DecisionType type = parseType(decisionField, kind);
        if (d.idp().enabled() && type != null && type != DecisionType.REJECT) {
            startIdpStepUp(ex, s, key, kind, type, path);
            return;
        }
        // the challenge is consumed first, so that whatever happens next this form can never post again
        Challenges.Consumed consumed = d.challenges().consume(ex.field("challenge"), s.id(), s.identity().subject(),
                key);
        if (!consumed.ok()) {
            refuse(ex, s, key, null, consumed.refusal(), path);
            return;
        }
        if (type == null) {
            refuse(ex, s, key, consumed.challenge().actionDigest(), Refusal.BAD_DECISION, path);
            return;
        }
        Review review = build(key, s, kind);
        if (!review.decidable()) {
            refuse(ex, s, key, review.actionDigest(), review.refusals().get(0), path);
            return;
        }
        if (!review.actionDigest().equals(consumed.challenge().actionDigest())) {
            refuse(ex, s, key, review.actionDigest(), Refusal.CHALLENGE_MISMATCH, path);
            return;
        }
        String authMethod = "oidc";
        if (type != DecisionType.REJECT) {
            StepUpCheck.Result stepUp = stepUpCheck.verify(ex, s, consumed.challenge().id());
            if (!stepUp.ok()) {
                refuse(ex, s, key, review.actionDigest(), switch (stepUp.outcome()) {
                    case LOCKED -> Refusal.STEP_UP_LOCKED;
                    case NONE_OFFERED -> Refusal.STEP_UP_REQUIRED;
                    default -> Refusal.STEP_UP_FAILED;
                }, path);
                return;
            }
            authMethod = stepUp.method();
        }
        publish(ex, s, key, kind, type, review, consumed.challenge(), authMethod, path);
    }

    /** The review's step-up through the identity provider: the challenge is checked now and consumed on return. */
    private void startIdpStepUp(Exchange ex, Session s, String key, ReviewBuilder.Kind kind, DecisionType type,
                                String path) throws IOException {
        String challengeId = ex.field("challenge");
        if (d.stepUps().locked(s.identity().org(), s.identity().subject(), d.clock().instant())) {
            refuse(ex, s, key, null, Refusal.STEP_UP_LOCKED, path);
            return;
        }
        Challenges.Consumed peek = d.challenges().peek(challengeId, s.id(), s.identity().subject(), key);
        if (!peek.ok()) {
            refuse(ex, s, key, null, peek.refusal(), path);
            return;
        }
        Review review = build(key, s, kind);
        if (!review.decidable()) {
            refuse(ex, s, key, review.actionDigest(), review.refusals().get(0), path);
            return;
        }
        if (!review.actionDigest().equals(peek.challenge().actionDigest())) {
            refuse(ex, s, key, review.actionDigest(), Refusal.CHALLENGE_MISMATCH, path);
            return;
        }
        String payload = Tokens.b64(JSON.writeValueAsBytes(new PendingStepUp(s.id(), s.identity().subject(),
                s.identity().org(), challengeId, key, kind.name(), type.name(), path)));
        try {
            OidcClient.Begin begin = d.oidc().beginStepUp(payload, d.idp().acrParameter());
            ex.setCookie(STEPUP_COOKIE, begin.loginCookie(), Exchange.SameSite.LAX, 600);
            PageKit.AUDIT.info("step-up at the identity provider started action={} action_digest={} subject={} "
                    + "org={} remote={}", key, review.actionDigest(), PageKit.safe(s.identity().subject()),
                    PageKit.safe(s.identity().org()), ex.remote());
            // a page of our own, not a redirect: CSP form-action 'self' would block a form post redirected elsewhere
            ex.html(200, kit.pages.render("to-idp", Map.of("url", begin.authorizationUrl().toString())));
        } catch (io.actiongate.approver.oidc.OidcException e) {
            LOG.warn("step-up cannot start: {}", e.getMessage());
            refuse(ex, s, key, review.actionDigest(), Refusal.STEP_UP_FAILED, path);
        }
    }

    /** What a step-up at the identity provider carries there and back (sealed in its cookie). */
    record PendingStepUp(String sessionId, String subject, String org, String challenge, String key, String kind,
                         String type, String path) {
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * {@code /oidc/callback} of a step-up: the new ID token must be the session's person, authenticated again just
     * now with the required strength; then the review's challenge is consumed and the decision published as for a
     * local step-up. The session cookie is SameSite=Strict and does not come back from the identity provider; the
     * sealed step-up cookie names the session, and a signed-out session decides nothing.
     *
     * <p>Every answer that does not verify (the provider's refusal, a token that fails its signature, issuer,
     * audience, expiry or nonce, another person, an old {@code auth_time}, a missing {@code acr} or {@code amr})
     * counts towards the person's step-up lock in the shared state, as a wrong one-time code does, on every replica;
     * a locked person's step-up publishes nothing, however good the token.
     */
    void finishIdpStepUp(Exchange ex) throws IOException {
        String cookie = ex.cookie(STEPUP_COOKIE);
        ex.clearCookie(STEPUP_COOKIE, Exchange.SameSite.LAX);
        String state = ex.query("state");
        PendingStepUp p = d.oidc().stepUpPayload(state, cookie).map(ApprovalApp::pendingStepUp).orElse(null);
        if (p == null) {
            // not this browser's step-up (or expired): nobody to count it against
            PageKit.AUDIT.info("refused step-up at the identity provider: the answer does not belong to this "
                    + "browser's step-up remote={}", ex.remote());
            ex.html(401, kit.message(null, "Nothing was published", "The identity provider's step-up did not "
                    + "verify. Nothing was published.", null, PageKit.link("/queue", "Back to the queue")));
            return;
        }
        Instant now = d.clock().instant();
        Session who = Session.transientFor(p.sessionId(), new Identity(p.subject(), p.org(), null, null), now);
        if (d.sessions().signedOut(p.sessionId())) {
            refuse(ex, who, p.key(), null, Refusal.SESSION_INVALID, p.path());
            return;
        }
        if (d.stepUps().locked(p.org(), p.subject(), now)) {
            refuse(ex, who, p.key(), null, Refusal.STEP_UP_LOCKED, p.path());
            return;
        }
        if (ex.query("error") != null) {
            PageKit.AUDIT.info("step-up at the identity provider refused by the provider error={} subject={} "
                    + "remote={}", PageKit.input(ex.query("error")), PageKit.safe(p.subject()), ex.remote());
            failedStepUp(ex, who, p, Refusal.STEP_UP_FAILED);
            return;
        }
        OidcClient.StepUp r;
        try {
            r = d.oidc().completeStepUp(state, cookie, ex.query("code"));
        } catch (io.actiongate.approver.oidc.OidcException e) {
            PageKit.AUDIT.info("refused step-up at the identity provider: {} subject={} remote={}",
                    PageKit.safe(e.getMessage()), PageKit.safe(p.subject()), ex.remote());
            failedStepUp(ex, who, p, Refusal.STEP_UP_FAILED);
            return;
        }
        Session s = Session.transientFor(p.sessionId(), r.identity(), now);
        ReviewBuilder.Kind kind = ReviewBuilder.Kind.valueOf(p.kind());
        DecisionType type = DecisionType.valueOf(p.type());
        if (!r.identity().subject().equals(p.subject()) || !r.identity().org().equals(p.org())) {
            failedStepUp(ex, who, p, Refusal.STEP_UP_FAILED);
            return;
        }
        Refusal weak = d.idp().check(r, now);
        if (weak != null) {
            failedStepUp(ex, s, p, weak);
            return;
        }
        Challenges.Consumed consumed = d.challenges().consume(p.challenge(), p.sessionId(), p.subject(), p.key());
        if (!consumed.ok()) {
            refuse(ex, s, p.key(), null, consumed.refusal(), p.path());
            return;
        }
        Review review = build(p.key(), s, kind);
        if (!review.decidable()) {
            refuse(ex, s, p.key(), review.actionDigest(), review.refusals().get(0), p.path());
            return;
        }
        if (!review.actionDigest().equals(consumed.challenge().actionDigest())) {
            refuse(ex, s, p.key(), review.actionDigest(), Refusal.CHALLENGE_MISMATCH, p.path());
            return;
        }
        publish(ex, s, p.key(), kind, type, review, consumed.challenge(), "oidc+idp-stepup", p.path());
    }

    /** A step-up at the identity provider that did not verify: one failure for the person it was started for. */
    private void failedStepUp(Exchange ex, Session who, PendingStepUp p, Refusal r) throws IOException {
        d.stepUps().recordFailure(p.org(), p.subject(), d.clock().instant());
        refuse(ex, who, p.key(), null, r, p.path());
    }

    private static PendingStepUp pendingStepUp(String payload) {
        try {
            return JSON.readValue(Tokens.unb64(payload), PendingStepUp.class);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private void publish(Exchange ex, Session s, String key, ReviewBuilder.Kind kind, DecisionType type,
                         Review review, Challenges.Challenge challenge, String authMethod, String path)
            throws IOException {
        String decisionId = decisionId(challenge, key, d.decisions().partitions());
        if (decided.putIfAbsent(decidedKey(key, review.actionDigest(), kind), decisionId) != null) {
            refuse(ex, s, key, review.actionDigest(), Refusal.ALREADY_DECIDED, path);
            return;
        }
        ActionKey k = ActionKey.parse(key);
        Decision published;
        try {
            published = d.decisions().publish(new DecisionPublisher.Request(decisionId, k.taskId(), k.toolCallId(),
                    type, review.actionDigest(), s.identity().subject(), s.identity().org(), authMethod),
                    d.clock().instant());
        } catch (DecisionPublisher.PublishException e) {
            // it may have reached the broker: this instance never publishes another decision for it
            LOG.warn("decision {} for {} not confirmed: {}", decisionId, key, e.getMessage());
            refuse(ex, s, key, review.actionDigest(), Refusal.PUBLISH_FAILED, path);
            return;
        }
        PageKit.AUDIT.info("published decision_id={} type={} action={} action_digest={} subject={} org={} "
                        + "auth_method={} "
                        + "expires_at={} remote={}", decisionId, type, key, review.actionDigest(),
                PageKit.safe(s.identity().subject()), PageKit.safe(s.identity().org()), authMethod,
                published.getExpiresAt(),
                ex.remote());
        String what = switch (type) {
            case APPROVE -> "You approved this exact action for one dispatch attempt.";
            case REJECT -> "You cancelled this action. It will not be sent.";
            case RESOLVE_EFFECT_CONFIRMED -> "You recorded that the effect happened.";
            case RESOLVE_NO_EFFECT -> "You recorded that the effect did not happen.";
        };
        ex.html(200, kit.message(s, "Decision published", null, what + " Decision " + decisionId
                + " (signed, expires " + published.getExpiresAt() + ") is on its way to the gate, which verifies it "
                + "again before anything happens.", PageKit.link("/queue", "Back to the queue")));
    }

    /**
     * The decision id of a review's single-use challenge: derived from the challenge alone, so every replica that
     * could publish for it names the same id, and among the challenge's candidates the first that the gate claims
     * in the action's own task (no internal hop: docs/benchmark.md, "Decisions: two hops in the gate").
     */
    static String decisionId(Challenges.Challenge challenge, String actionKey, int partitions) {
        return Partitioning.colocatedDecisionId(i -> "apr-" + sha256Hex(i == 0 ? challenge.id()
                : challenge.id() + "#" + i).substring(0, 32), actionKey, partitions);
    }

    private static DecisionType parseType(String value, ReviewBuilder.Kind kind) {
        if (value == null) {
            return null;
        }
        return switch (value) {
            case "APPROVE" -> kind == ReviewBuilder.Kind.APPROVAL ? DecisionType.APPROVE : null;
            case "REJECT" -> kind == ReviewBuilder.Kind.APPROVAL ? DecisionType.REJECT : null;
            case "RESOLVE_EFFECT_CONFIRMED" -> kind == ReviewBuilder.Kind.RESOLUTION
                    ? DecisionType.RESOLVE_EFFECT_CONFIRMED : null;
            case "RESOLVE_NO_EFFECT" -> kind == ReviewBuilder.Kind.RESOLUTION ? DecisionType.RESOLVE_NO_EFFECT : null;
            default -> null;
        };
    }

    private void refuse(Exchange ex, Session s, String key, String digest, Refusal r, String path) throws IOException {
        PageKit.audit(r, ex, s, key, digest);
        // the path is request input: linked again only for an action the service knows, else the queue
        boolean known = d.book().get(key).isPresent();
        ex.html(409, kit.message(s, "Nothing was published", r.message(), null,
                known ? PageKit.link(path, "Open the review again") : PageKit.link("/queue", "Open the queue")));
    }

    private static String decidedKey(String key, String digest, ReviewBuilder.Kind kind) {
        return key + '|' + digest + '|' + kind;
    }

    private static String sha256Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
