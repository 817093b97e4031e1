package io.actiongate.approver.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.actiongate.approver.Fixtures;
import io.actiongate.approver.TestIdp;
import io.actiongate.approver.stepup.Totp;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.Verdict;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.Partitioning;
import io.actiongate.testing.ApprovalPageClient;
import io.actiongate.testing.OneTimeCodeApp;

/**
 * The approval pages over real HTTP with a real OIDC provider: sign-in, the review page, and every way a form post
 * can be refused without publishing anything.
 */
class ApprovalAppTest {

    private static TestIdp idp;
    private AppHarness app;
    private ApprovalPageClient browser;
    private ActionProposal email;

    @BeforeAll
    static void idp() {
        idp = new TestIdp(false);
    }

    @AfterAll
    static void stopIdp() {
        idp.close();
    }

    @BeforeEach
    void setUp() throws Exception {
        app = new AppHarness(idp);
        browser = new ApprovalPageClient(List.of(), Duration.ofSeconds(5), app.clock);
        email = Fixtures.email("T-1", "email-1");
        app.book.proposal("T-1/email-1", email);
        app.book.receipt("T-1/email-1", Fixtures.waiting(email, app.clock.instant()));
    }

    @AfterEach
    void tearDown() {
        app.close();
    }

    private void signIn(ApprovalPageClient who, String subject, String org, String mail) throws Exception {
        idp.nextSignIn(subject, org, mail);
        HttpResponse<String> r = who.follow(app.url("/login?return=/queue"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("Signed in");
        assertThat(who.cookie(ApprovalApp.SESSION_COOKIE)).isNotNull();
    }

    /** Sets up a one-time code app through the pages, as a person would; its codes read the service's clock. */
    private OneTimeCodeApp enrolTotp(ApprovalPageClient who) throws Exception {
        OneTimeCodeApp codes = who.enrolTotp(URI.create(app.origin));
        app.clock.advance(Duration.ofSeconds(30)); // the next code belongs to a new step
        return codes;
    }

    private Map<String, String> form(String reviewPage, String decision) {
        Map<String, String> f = new HashMap<>();
        f.put("csrf", ApprovalPageClient.input(reviewPage, "csrf"));
        f.put("challenge", ApprovalPageClient.input(reviewPage, "challenge"));
        f.put("decision", decision);
        return f;
    }

    private String code(OneTimeCodeApp codes) {
        return codes.codeAt(OneTimeCodeApp.stepAt(app.clock.instant()));
    }

    private String code(byte[] secret) {
        return Totp.code(secret, Totp.step(app.clock.instant()));
    }

    @Test
    void shouldShowTheExactEmailWithTheIssuesWordingAndStrictHeaders() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        HttpResponse<String> r = browser.get(app.url("/review/T-1/email-1"));
        String page = r.body();

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(ApprovalPageClient.text(page, "who")).isEqualTo("alice@example.com");
        assertThat(ApprovalPageClient.text(page, "recipient")).isEqualTo(Fixtures.TO);
        assertThat(ApprovalPageClient.text(page, "subject")).isEqualTo(Fixtures.SUBJECT);
        assertThat(ApprovalPageClient.text(page, "body")).isEqualTo(Fixtures.BODY);
        assertThat(page).contains("assistant@example.com", "The assistant's own words (not verified)",
                "This will disclose the body above outside the private workspace. Sending cannot reliably be recalled.",
                ">Approve this exact action for one dispatch attempt<", ">Cancel \u2014 do not send<");
        assertThat(ApprovalPageClient.text(page, "action-digest")).isEqualTo(Digests.actionDigest(FrozenAction.of(email)));
        assertThat(page).doesNotContain("<script>").contains("<script src=\"/static/approver.js\" defer></script>");
        assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("script-src 'self'", "frame-ancestors 'none'").doesNotContain("unsafe-inline");
        assertThat(r.headers().firstValue("X-Frame-Options")).contains("DENY");
        assertThat(browser.setCookieLines()).anySatisfy(c -> assertThat(c)
                .startsWith(ApprovalApp.SESSION_COOKIE + "=").contains("HttpOnly", "Secure", "SameSite=Strict"));
    }

    @Test
    void shouldPublishOneSignedApprovalBoundToTheDigestAfterStepUp() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp secret = enrolTotp(browser);
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f = form(page, "APPROVE");
        f.put("totp", code(secret));

        HttpResponse<String> r = browser.post(app.url("/review/T-1/email-1"), app.origin, f);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("You approved this exact action for one dispatch attempt.");
        assertThat(app.published).singleElement().satisfies(d -> {
            assertThat(DecisionSigning.verify(d, app.keys.getPublic())).isTrue();
            assertThat(d.getType()).isEqualTo(DecisionType.APPROVE);
            assertThat(d.getActionDigest()).isEqualTo(Digests.actionDigest(FrozenAction.of(email)));
            assertThat(d.getApproverSubject()).isEqualTo("alice-sub");
            assertThat(d.getApproverOrg()).isEqualTo("demo");
            assertThat(d.getAuthMethod()).isEqualTo("oidc+totp");
            assertThat(d.getKeyId()).isEqualTo("approver-test");
            assertThat(Duration.between(d.getIssuedAt(), d.getExpiresAt())).isEqualTo(Duration.ofMinutes(10));
            // the gate claims the id in the action's own task: the decision takes no internal hop
            assertThat(Partitioning.home(d.getDecisionId(), AppHarness.PARTITIONS))
                    .isEqualTo(Partitioning.home("T-1/email-1", AppHarness.PARTITIONS));
            assertThat(d.getDecisionId()).matches("apr-[0-9a-f]{32}");
        });

        // a double click or a replay of the same form, even with a fresh code, posts nothing twice
        app.clock.advance(Duration.ofSeconds(30));
        f.put("totp", code(secret));
        HttpResponse<String> replay = browser.post(app.url("/review/T-1/email-1"), app.origin, f);
        assertThat(replay.statusCode()).isEqualTo(409);
        assertThat(replay.body()).contains("already used");
        assertThat(app.published).hasSize(1);
    }

    @Test
    void shouldPublishNothingForASecondTabOnceTheActionIsDecided() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp secret = enrolTotp(browser);
        String tab1 = browser.get(app.url("/review/T-1/email-1")).body();
        String tab2 = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f1 = form(tab1, "APPROVE");
        f1.put("totp", code(secret));
        assertThat(browser.post(app.url("/review/T-1/email-1"), app.origin, f1).statusCode()).isEqualTo(200);

        HttpResponse<String> second = browser.post(app.url("/review/T-1/email-1"), app.origin, form(tab2, "REJECT"));

        // the two tabs of one session show the one open form of the action: the second finds it used
        assertThat(ApprovalPageClient.input(tab2, "challenge")).isEqualTo(ApprovalPageClient.input(tab1, "challenge"));
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.body()).contains("already used");
        assertThat(app.published).hasSize(1);
        // a tab loaded after the decision shows it decided
        assertThat(browser.get(app.url("/review/T-1/email-1")).body()).contains("already published");
    }

    @Test
    void shouldPublishARejectWithoutStepUpButNoApproval() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        HttpResponse<String> noStepUp = browser.post(app.url("/review/T-1/email-1"), app.origin,
                form(page, "APPROVE"));
        assertThat(noStepUp.statusCode()).isEqualTo(409);
        assertThat(noStepUp.body()).contains("needs a step-up");
        assertThat(app.published).isEmpty();

        String again = browser.get(app.url("/review/T-1/email-1")).body();
        HttpResponse<String> cancel = browser.post(app.url("/review/T-1/email-1"), app.origin, form(again, "REJECT"));

        assertThat(cancel.statusCode()).isEqualTo(200);
        assertThat(app.published).singleElement().satisfies(d -> {
            assertThat(d.getType()).isEqualTo(DecisionType.REJECT);
            assertThat(d.getAuthMethod()).isEqualTo("oidc");
            assertThat(DecisionSigning.verify(d, app.keys.getPublic())).isTrue();
        });
    }

    @Test
    void shouldPublishNothingWithAWrongOneTimeCode() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp secret = enrolTotp(browser);
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f = form(page, "APPROVE");
        String right = code(secret);
        f.put("totp", right.equals("000000") ? "111111" : "000000");

        HttpResponse<String> r = browser.post(app.url("/review/T-1/email-1"), app.origin, f);

        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("step-up verification failed");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldPublishNothingWithoutTheAntiForgeryToken() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f = form(page, "REJECT");
        f.remove("csrf");
        HttpResponse<String> missing = browser.post(app.url("/review/T-1/email-1"), app.origin, f);
        f.put("csrf", "forged-" + ApprovalPageClient.input(page, "csrf"));
        HttpResponse<String> wrong = browser.post(app.url("/review/T-1/email-1"), app.origin, f);

        assertThat(missing.statusCode()).isEqualTo(403);
        assertThat(wrong.statusCode()).isEqualTo(403);
        assertThat(missing.body()).contains("anti-forgery token is missing or wrong");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldPublishNothingFromAForeignOrMissingOrigin() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String page = browser.get(app.url("/review/T-1/email-1")).body();

        HttpResponse<String> foreign = browser.post(app.url("/review/T-1/email-1"), "http://localhost:1",
                form(page, "REJECT"));
        HttpResponse<String> none = browser.post(app.url("/review/T-1/email-1"), null, form(page, "REJECT"));
        HttpResponse<String> nullOrigin = browser.post(app.url("/review/T-1/email-1"), "null", form(page, "REJECT"));

        assertThat(foreign.statusCode()).isEqualTo(403);
        assertThat(none.statusCode()).isEqualTo(403);
        assertThat(nullOrigin.statusCode()).isEqualTo(403);
        assertThat(foreign.body()).contains("did not come from this site");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldRefuseAFormItNeverReadAndAnswerTheNextPostOnTheSameConnection() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String page = browser.get(app.url("/review/T-1/email-1")).body();

        // refused before the body is read: the server discards the body after the answer and the connection
        // carries the next request (a POST, which a client does not retry on a connection the server closed)
        HttpResponse<String> foreign = browser.post(app.url("/review/T-1/email-1"), "http://localhost:1",
                form(page, "REJECT"));
        HttpResponse<String> again = browser.post(app.url("/review/T-1/email-1"), "http://localhost:1",
                form(page, "REJECT"));

        assertThat(foreign.statusCode()).isEqualTo(403);
        assertThat(foreign.headers().firstValue("Connection")).isEmpty();
        assertThat(again.statusCode()).isEqualTo(403);
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldPublishNothingWithoutASession() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        ApprovalPageClient stranger = new ApprovalPageClient();

        HttpResponse<String> r = stranger.post(app.url("/review/T-1/email-1"), app.origin, form(page, "REJECT"));
        HttpResponse<String> get = stranger.get(app.url("/review/T-1/email-1"));

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(get.statusCode()).isEqualTo(303);
        assertThat(get.headers().firstValue("Location").orElseThrow()).startsWith("/login?return=");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldPublishNothingForAnExpiredChallenge() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        app.clock.advance(Duration.ofMinutes(5).plusSeconds(1));

        HttpResponse<String> r = browser.post(app.url("/review/T-1/email-1"), app.origin, form(page, "REJECT"));

        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("This review form expired");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldOfferNothingToAnotherOrgsSubjectAndPublishNothingForThem() throws Exception {
        ApprovalPageClient mallory = new ApprovalPageClient();
        signIn(mallory, "mallory-sub", "acme", "mallory@acme.example");
        String page = mallory.get(app.url("/review/T-1/email-1")).body();
        String unknown = mallory.get(app.url("/review/T-404/none")).body();

        // nothing at all: the page is the one of a key that does not exist
        assertThat(page.replace("T-1/email-1", "KEY")).isEqualTo(unknown.replace("T-404/none", "KEY"));
        assertThat(page).doesNotContain(Fixtures.BODY).doesNotContain("id=\"approve\"").doesNotContain("send_email")
                .doesNotContain("smtp").doesNotContain("WAITING_APPROVAL").doesNotContain("OTHER_ORG")
                .doesNotContain(Digests.actionDigest(FrozenAction.of(email)));
        assertThat(ApprovalPageClient.input(page, "challenge")).isNull();

        // a challenge stolen from Alice's page does not help: it is bound to her session
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String alices = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f = form(alices, "REJECT");
        f.put("csrf", ApprovalPageClient.input(page, "csrf"));
        HttpResponse<String> r = mallory.post(app.url("/review/T-1/email-1"), app.origin, f);

        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldKeepShowingAndDecidingTheFrozenOriginalAfterAConflictingProposal() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp secret = enrolTotp(browser);
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        // a conflicting proposal under the same ids: the gate refuses it and keeps waiting on the original
        ActionProposal altered = Fixtures.email("T-1", "email-1", "demo",
                Fixtures.emailInput("partner@example.com", Fixtures.SUBJECT, "The whole customer list."),
                Fixtures.SUMMARY);
        app.book.proposal("T-1/email-1", altered);
        assertThat(browser.get(app.url("/review/T-1/email-1")).body())
                .as("not the gate's word yet").doesNotContain("id=\"conflict-refused\"");
        app.book.conflict("T-1/email-1", Fixtures.conflict(email, altered, app.clock.instant()));

        String reopened = browser.get(app.url("/review/T-1/email-1")).body();
        assertThat(ApprovalPageClient.text(reopened, "recipient")).isEqualTo(Fixtures.TO);
        assertThat(ApprovalPageClient.text(reopened, "body")).isEqualTo(Fixtures.BODY);
        assertThat(reopened).doesNotContain("The whole customer list.").doesNotContain("partner@example.com")
                .contains("id=\"conflict-refused\"", "A conflicting proposal under the same ids was refused",
                        "id=\"approve\"");

        // the form opened before the conflict still decides the original
        Map<String, String> f = form(page, "APPROVE");
        f.put("totp", code(secret));
        HttpResponse<String> r = browser.post(app.url("/review/T-1/email-1"), app.origin, f);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(app.published).singleElement().satisfies(d ->
                assertThat(d.getActionDigest()).isEqualTo(Digests.actionDigest(FrozenAction.of(email))));
    }

    @Test
    void shouldStillDecideAfterAHundredReloadsOfTheReviewPage() throws Exception {
        // each reload minted a challenge, and after 32 the reviewer could decide nothing
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp secret = enrolTotp(browser);
        String page = null;
        for (int i = 0; i < 100; i++) {
            page = browser.get(app.url("/review/T-1/email-1")).body();
            assertThat(page).as("reload %d", i).contains("id=\"decide\"").doesNotContain("too many review forms");
        }
        assertThat(app.state.keys("challenge/")).hasSize(1);
        Map<String, String> f = form(page, "APPROVE");
        f.put("totp", code(secret));

        assertThat(browser.post(app.url("/review/T-1/email-1"), app.origin, f).statusCode()).isEqualTo(200);
        assertThat(app.published).hasSize(1);
    }

    @Test
    void shouldBoundTheOpenReviewsOfASessionByActions() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        for (int i = 0; i < Challenges.MAX_OPEN_PER_SESSION; i++) {
            ActionProposal p = Fixtures.email("T-1", "bound-" + i);
            app.book.proposal("T-1/bound-" + i, p);
            app.book.receipt("T-1/bound-" + i, Fixtures.waiting(p, app.clock.instant()));
            assertThat(browser.get(app.url("/review/T-1/bound-" + i)).body()).contains("id=\"decide\"");
            assertThat(browser.get(app.url("/review/T-1/bound-" + i)).body()).as("a reload takes no new place")
                    .contains("id=\"decide\"");
        }
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        assertThat(page).doesNotContain("id=\"decide\"").contains("too many review forms open");
        assertThat(app.state.keys("challenge/")).hasSize(Challenges.MAX_OPEN_PER_SESSION);
    }

    @Test
    void shouldNeverRepeatACredentialOfAFormOrPathInAnAnswerOrALogLine() throws Exception {
        // request fields and paths are input; a refusal page or an audit line never repeats a token
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        java.util.List<String> answers = new java.util.ArrayList<>();
        try {
            signIn(browser, "alice-sub", "demo", "alice@example.com");
            String page = browser.get(app.url("/review/T-1/email-1")).body();
            for (String token : io.actiongate.testing.TokenShapes.all().values()) {
                String enc = java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8);
                for (String path : java.util.List.of("/review/T-1/" + enc, "/review/" + enc + "/c-1",
                        "/resolve/" + enc + "/c-1", "/login?return=" + enc, "/" + enc)) {
                    HttpResponse<String> r = browser.get(app.url(path));
                    answers.add(r.statusCode() + " " + r.headers().map() + " " + r.body());
                }
                for (Map<String, String> f : java.util.List.of(
                        Map.of("csrf", ApprovalPageClient.input(page, "csrf"), "challenge", token, "decision", "APPROVE",
                                "totp", token),
                        Map.of("csrf", token, "challenge", ApprovalPageClient.input(page, "challenge"), "decision", token),
                        Map.of("csrf", ApprovalPageClient.input(page, "csrf"), "challenge", ApprovalPageClient.input(page, "challenge"),
                                "decision", token, token, token))) {
                    HttpResponse<String> r = browser.post(app.url("/review/T-1/email-1"), app.origin, f);
                    answers.add(r.statusCode() + " " + r.headers().map() + " " + r.body());
                    HttpResponse<String> other = browser.post(app.url("/review/T-1/" + enc), app.origin, f);
                    answers.add(other.statusCode() + " " + other.headers().map() + " " + other.body());
                }
            }
        } finally {
            root.detachAppender(logs);
        }
        assertThat(answers).hasSizeGreaterThan(40).noneMatch(io.actiongate.testing.TokenShapes::leaks);
        assertThat(logs.list).isNotEmpty().extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .noneMatch(io.actiongate.testing.TokenShapes::leaks);
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldNeverLandOnAnotherOriginAfterSignIn() throws Exception {
        for (String attack : new String[] {"/\t/evil.example/x", "/\\evil.example", "//evil.example",
                "/\n/evil.example", " /queue", "https://evil.example/", "/queue\"><script>", "/%09/../x\u0000"}) {
            ApprovalPageClient who = new ApprovalPageClient();
            idp.nextSignIn("alice-sub", "demo", "alice@example.com");
            HttpResponse<String> r = who.follow(app.url("/login?return="
                    + java.net.URLEncoder.encode(attack, java.nio.charset.StandardCharsets.UTF_8)));
            assertThat(r.body()).as(attack).contains("Signed in")
                    .contains("<meta http-equiv=\"refresh\" content=\"0;url=/queue\">");
        }
        ApprovalPageClient who = new ApprovalPageClient();
        idp.nextSignIn("alice-sub", "demo", "alice@example.com");
        assertThat(who.follow(app.url("/login?return=/review/T-1/email-1")).body())
                .contains("content=\"0;url=/review/T-1/email-1\"");
    }

    @Test
    void shouldKeepNoPendingSignInInTheServiceAndRefuseAnAlteredLoginCookie() throws Exception {
        HttpResponse<String> toIdp = browser.get(app.url("/login"));
        String cookie = browser.cookie(ApprovalApp.LOGIN_COOKIE);
        assertThat(cookie).as("the pending sign-in travels sealed in the cookie").hasSizeLessThan(1024);
        assertThat(cookie).doesNotContain("queue");

        String authorize = toIdp.headers().firstValue("Location").orElseThrow();
        ApprovalPageClient forger = new ApprovalPageClient();
        forger.get(app.url("/login"));
        // another browser's cookie, or this one altered, does not finish this browser's sign-in
        String flipped = (cookie.charAt(5) == 'A' ? "B" : "A");
        for (String bad : new String[] {forger.cookie(ApprovalApp.LOGIN_COOKIE),
                cookie.substring(0, 5) + flipped + cookie.substring(6)}) {
            ApprovalPageClient attacker = new ApprovalPageClient();
            attacker.setCookie(ApprovalApp.LOGIN_COOKIE, bad);
            HttpResponse<String> callback = attacker.follow(authorize);
            assertThat(callback.statusCode()).isEqualTo(401);
            assertThat(attacker.cookie(ApprovalApp.SESSION_COOKIE)).isNull();
        }
    }

    @Test
    void shouldNotLetAFreshSignInReplaceOrAddAStepUpFactor() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp victims = enrolTotp(browser);

        // whoever can complete an IdP sign-in as Alice, fresh, within the enrolment window
        ApprovalPageClient attacker = new ApprovalPageClient();
        signIn(attacker, "alice-sub", "demo", "alice@example.com");
        String stepup = attacker.get(app.url("/stepup")).body();
        assertThat(stepup).contains("id=\"confirm-factor\"").doesNotContain("id=\"totp-begin\"")
                .doesNotContain("id=\"register\"");
        String csrf = ApprovalPageClient.input(stepup, "csrf");

        HttpResponse<String> newTotp = attacker.post(app.url("/stepup/totp"), app.origin, Map.of("csrf", csrf));
        HttpResponse<String> passkey = attacker.post(app.url("/stepup/passkey"), app.origin, Map.of("csrf", csrf,
                "attestation_object", "AAAA", "client_data", "AAAA"));

        assertThat(newTotp.statusCode()).isEqualTo(400);
        assertThat(newTotp.body()).contains("needs a step-up with one you already have")
                .doesNotContain("id=\"totp-secret\"");
        assertThat(passkey.statusCode()).isEqualTo(400);
        assertThat(passkey.body()).contains("needs a step-up with one you already have");
        assertThat(app.book.get("T-1/email-1")).isPresent();
        // the attacker's session cannot approve, and Alice's own app still works
        String page = attacker.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f = form(page, "APPROVE");
        f.put("totp", "123456".equals(code(victims)) ? "654321" : "123456");
        assertThat(attacker.post(app.url("/review/T-1/email-1"), app.origin, f).statusCode()).isEqualTo(409);
        String alices = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> g = form(alices, "APPROVE");
        g.put("totp", code(victims));
        assertThat(browser.post(app.url("/review/T-1/email-1"), app.origin, g).statusCode()).isEqualTo(200);
        assertThat(app.published).singleElement().satisfies(d -> assertThat(d.getAuthMethod()).isEqualTo("oidc+totp"));
    }

    @Test
    void shouldReplaceTheOneTimeCodeAppOnlyAfterAStepUpWithTheOldOne() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp old = enrolTotp(browser);
        String stepup = browser.get(app.url("/stepup")).body();
        String csrf = ApprovalPageClient.input(stepup, "csrf");
        String wrong = "123456".equals(code(old)) ? "654321" : "123456";

        HttpResponse<String> refused = browser.post(app.url("/stepup/confirm"), app.origin,
                Map.of("csrf", csrf, "totp", wrong));
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(browser.post(app.url("/stepup/totp"), app.origin, Map.of("csrf", csrf)).body())
                .doesNotContain("id=\"totp-secret\"");

        HttpResponse<String> confirmed = browser.post(app.url("/stepup/confirm"), app.origin,
                Map.of("csrf", csrf, "totp", code(old)));
        assertThat(confirmed.body()).contains("You may add or replace a factor now.");
        String pending = browser.post(app.url("/stepup/totp"), app.origin, Map.of("csrf", csrf)).body();
        byte[] replacement = Totp.unbase32(ApprovalPageClient.text(pending, "totp-secret"));
        app.clock.advance(Duration.ofSeconds(30));
        assertThat(browser.post(app.url("/stepup/totp/confirm"), app.origin,
                Map.of("csrf", csrf, "totp", code(replacement))).body()).contains("One-time code app set up.");
        app.clock.advance(Duration.ofSeconds(30));

        String page = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> f = form(page, "APPROVE");
        f.put("totp", code(old));
        assertThat(browser.post(app.url("/review/T-1/email-1"), app.origin, f).statusCode())
                .as("the replaced app's codes are refused").isEqualTo(409);
        String again = browser.get(app.url("/review/T-1/email-1")).body();
        Map<String, String> g = form(again, "APPROVE");
        g.put("totp", code(replacement));
        assertThat(browser.post(app.url("/review/T-1/email-1"), app.origin, g).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldCloseEnrolmentAgainAfterTheConfirmationWindow() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        OneTimeCodeApp old = enrolTotp(browser);
        String csrf = ApprovalPageClient.input(browser.get(app.url("/stepup")).body(), "csrf");
        browser.post(app.url("/stepup/confirm"), app.origin, Map.of("csrf", csrf, "totp", code(old)));
        app.clock.advance(Duration.ofMinutes(5).plusSeconds(1));

        HttpResponse<String> late = browser.post(app.url("/stepup/totp"), app.origin, Map.of("csrf", csrf));

        assertThat(late.statusCode()).isEqualTo(400);
        assertThat(late.body()).doesNotContain("id=\"totp-secret\"");
    }

    @Test
    void shouldKeepAPendingEnrolmentWhenAConcurrentAnswerCarriesAnOlderSessionCookie() throws Exception {
        signIn(browser, "alice-sub", "demo", "alice@example.com");
        String before = browser.cookie(ApprovalApp.SESSION_COOKIE);
        String csrf = ApprovalPageClient.input(browser.get(app.url("/stepup")).body(), "csrf");
        String pending = browser.post(app.url("/stepup/totp"), app.origin, Map.of("csrf", csrf)).body();
        byte[] secret = Totp.unbase32(ApprovalPageClient.text(pending, "totp-secret"));

        // the page's favicon request left with the older cookie, and its answer arrives last
        ApprovalPageClient favicon = new ApprovalPageClient();
        favicon.setCookie(ApprovalApp.SESSION_COOKIE, before);
        favicon.get(app.url("/favicon.ico"));
        String last = favicon.cookie(ApprovalApp.SESSION_COOKIE);
        browser.setCookie(ApprovalApp.SESSION_COOKIE, last == null ? before : last);

        String done = browser.post(app.url("/stepup/totp/confirm"), app.origin,
                Map.of("csrf", csrf, "totp", code(secret))).body();
        assertThat(done).contains("One-time code app set up.");
    }

    @Test
    void shouldRefuseASignInResponseThatThisBrowserDidNotStart() throws Exception {
        // no identity is queued: the token endpoint is never reached, so a queued one would leak into the next test
        HttpResponse<String> toIdp = browser.get(app.url("/login"));
        String authorize = toIdp.headers().firstValue("Location").orElseThrow();
        browser.dropCookie(ApprovalApp.LOGIN_COOKIE); // the callback arrives in a browser without the login cookie
        HttpResponse<String> callback = browser.follow(authorize);

        assertThat(callback.statusCode()).isEqualTo(401);
        assertThat(browser.cookie(ApprovalApp.SESSION_COOKIE)).isNull();
        assertThat(authorize).contains("code_challenge_method=S256", "nonce=", "state=");
    }

    @Test
    void shouldListTheOrgsWaitingActionsOldestFirst() throws Exception {
        ActionProposal older = Fixtures.email("T-0", "email-0");
        app.book.proposal("T-0/email-0", older);
        app.book.receipt("T-0/email-0", Fixtures.waiting(older, app.clock.instant().minusSeconds(600)));
        ActionProposal foreign = Fixtures.email("T-9", "email-9", "acme", Fixtures.emailInput("a@example.com", "s",
                "b"), "s");
        app.book.proposal("T-9/email-9", foreign);
        app.book.receipt("T-9/email-9", Fixtures.waiting(foreign, app.clock.instant()));
        signIn(browser, "alice-sub", "demo", "alice@example.com");

        String queue = browser.get(app.url("/queue")).body();

        assertThat(queue.indexOf("/review/T-0/email-0")).isPositive().isLessThan(queue.indexOf("/review/T-1/email-1"));
        assertThat(queue).doesNotContain("T-9").contains("min").contains("left");
    }

    @Test
    void shouldSortTheQueueByDeadlineWithTimeLeftAndFilterByToolAndRequester() throws Exception {
        ActionProposal soon = ActionProposal.newBuilder(Fixtures.email("T-0", "email-0")).setPrincipalId("user-9")
                .build();
        app.book.proposal("T-0/email-0", soon);
        app.book.receipt("T-0/email-0", Fixtures.waiting(soon, app.clock.instant().minus(Duration.ofMinutes(25))));
        ActionProposal hook = ActionProposal.newBuilder(Fixtures.email("T-5", "hook-5")).setProvider("webhook")
                .setToolName("post_update").setOperation("post_update").build();
        app.book.proposal("T-5/hook-5", hook);
        app.book.receipt("T-5/hook-5", Fixtures.waiting(hook, app.clock.instant().minus(Duration.ofMinutes(10))));
        signIn(browser, "alice-sub", "demo", "alice@example.com");

        String all = browser.get(app.url("/queue")).body();
        // approval wait 30 min: T-0 has 5 min left, T-5 20, T-1 30
        assertThat(all.indexOf("/review/T-0/email-0")).isPositive().isLessThan(all.indexOf("/review/T-5/hook-5"));
        assertThat(all.indexOf("/review/T-5/hook-5")).isLessThan(all.indexOf("/review/T-1/email-1"));
        // (receipt times are milliseconds: a few hundred microseconds less than the full minute may be left)
        assertThat(all).containsPattern("(4 min 59|5 min 0) s left").containsPattern("(19 min 59|20 min 0) s left");
        assertThat(all).contains("class=\"urgent\"",
                "<label for=\"filter-tool\">", "<label for=\"filter-requester\">", "data-label=\"Time left\"",
                "<option value=\"webhook / post_update\">", "<option value=\"user-9\">");

        String byTool = browser.get(app.url("/queue?tool=webhook+%2F+post_update")).body();
        assertThat(byTool).contains("/review/T-5/hook-5").doesNotContain("/review/T-0/email-0")
                .doesNotContain("/review/T-1/email-1").contains("<option value=\"webhook / post_update\" selected>");
        String byRequester = browser.get(app.url("/queue?requester=user-9")).body();
        assertThat(byRequester).contains("/review/T-0/email-0").doesNotContain("/review/T-5/hook-5")
                .doesNotContain("/review/T-1/email-1");
        String none = browser.get(app.url("/queue?requester=nobody")).body();
        assertThat(none).contains("Nothing is waiting that matches the filter.");
        String css = browser.get(app.url("/static/approver.css")).body();
        assertThat(css).contains("@media (max-width: 40rem)", "td::before");
    }

    @Test
    void shouldShowAnUnknownActionsAttemptsAndEvidenceAndRecordTheOwnersResolutionAfterStepUp() throws Exception {
        ActionProposal p = Fixtures.email("T-2", "email-u");
        java.time.Instant t = app.clock.instant().minusSeconds(120);
        Receipt unknown = Receipt.newBuilder(Fixtures.receipt(p, ReceiptStatus.UNKNOWN, t))
                .setAttempts(java.util.List.of(AttemptSummary.newBuilder().setAttempt(1)
                        .setStatus(OutcomeStatus.UNKNOWN).setDispatched(true).setHttpStatus(null)
                        .setErrorCode("RESPONSE_TIMEOUT").setStartedAt(t).setFinishedAt(t).build()))
                .build();
        app.book.proposal("T-2/email-u", p);
        app.book.receipt("T-2/email-u", unknown);
        app.book.outcome("T-2/email-u", AttemptOutcome.newBuilder().setTaskId("T-2").setToolCallId("email-u")
                .setAttempt(1).setStatus(OutcomeStatus.UNKNOWN).setDispatched(true)
                .setErrorCode("RESPONSE_TIMEOUT").setErrorDetail("no answer within 10000 ms after DATA")
                .setStartedAt(t).setFinishedAt(t).build());
        app.book.reconciliation("T-2/email-u", Reconciliation.newBuilder().setTaskId("T-2").setToolCallId("email-u")
                .setAttempt(1).setVerdict(Verdict.STILL_UNKNOWN).setEvidence("IMAP folder not authoritative")
                .setLookups(3).setCheckedAt(t).build());
        signIn(browser, "owner-sub", "demo", "owner@example.com");
        OneTimeCodeApp secret = enrolTotp(browser);

        String queue = browser.get(app.url("/queue")).body();
        assertThat(queue).contains("/resolve/T-2/email-u");
        String page = browser.get(app.url("/resolve/T-2/email-u")).body();
        assertThat(page).contains("RESPONSE_TIMEOUT", "no answer within 10000 ms after DATA", "STILL_UNKNOWN",
                "IMAP folder not authoritative", "record RESOLVE_NO_EFFECT", "record RESOLVE_EFFECT_CONFIRMED");
        assertThat(page).doesNotContain("id=\"approve\"");

        // an approval is not a decision this page offers
        HttpResponse<String> wrongKind = browser.post(app.url("/resolve/T-2/email-u"), app.origin,
                form(page, "APPROVE"));
        assertThat(wrongKind.statusCode()).isEqualTo(409);
        String again = browser.get(app.url("/resolve/T-2/email-u")).body();
        Map<String, String> noStepUp = form(again, "RESOLVE_NO_EFFECT");
        assertThat(browser.post(app.url("/resolve/T-2/email-u"), app.origin, noStepUp).statusCode()).isEqualTo(409);
        assertThat(app.published).isEmpty();

        String third = browser.get(app.url("/resolve/T-2/email-u")).body();
        Map<String, String> f = form(third, "RESOLVE_NO_EFFECT");
        f.put("totp", code(secret));
        HttpResponse<String> r = browser.post(app.url("/resolve/T-2/email-u"), app.origin, f);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(app.published).singleElement().satisfies(d -> {
            assertThat(d.getType()).isEqualTo(DecisionType.RESOLVE_NO_EFFECT);
            assertThat(d.getActionDigest()).isEqualTo(unknown.getActionDigest());
            assertThat(d.getAuthMethod()).isEqualTo("oidc+totp");
            assertThat(DecisionSigning.verify(d, app.keys.getPublic())).isTrue();
        });
        // the review page of the same action offers no approval: it is not waiting
        assertThat(browser.get(app.url("/review/T-2/email-u")).body()).doesNotContain("id=\"approve\"");
    }
}
