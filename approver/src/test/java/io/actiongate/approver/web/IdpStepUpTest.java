package io.actiongate.approver.web;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.actiongate.approver.state.LocalState;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.testing.ApprovalPageClient;

/** {@code approver.stepup.mode=idp}: each approval is a fresh authentication at the identity provider. */
class IdpStepUpTest {

    private static final IdpStepUp MODE = new IdpStepUp(true, List.of("urn:acme:mfa"), List.of("otp", "hwk"),
            Duration.ofSeconds(120));

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
        app = new AppHarness(idp, new LocalState(), MODE);
        browser = new ApprovalPageClient();
        email = Fixtures.email("T-1", "email-1");
        app.book.proposal("T-1/email-1", email);
        app.book.receipt("T-1/email-1", Fixtures.waiting(email, app.clock.instant()));
        idp.nextSignIn("alice-sub", "demo", "alice@example.com");
        assertThat(browser.follow(app.url("/login?return=/queue")).body()).contains("Signed in");
    }

    @AfterEach
    void tearDown() {
        app.close();
    }

    private Map<String, Object> claims(String acr, List<String> amr, long authTimeSeconds) {
        Map<String, Object> c = new HashMap<>();
        c.put("org", "demo");
        c.put("email", "alice@example.com");
        if (acr != null) {
            c.put("acr", acr);
        }
        if (amr != null) {
            c.put("amr", amr);
        }
        if (authTimeSeconds > 0) {
            c.put("auth_time", authTimeSeconds);
        }
        return c;
    }

    private long now() {
        return app.clock.instant().getEpochSecond();
    }

    /** The identity provider's login form (prompt=login always shows it), answered as {@code subject}. */
    private static Map<String, String> idpForm(String subject, Map<String, Object> claims) throws Exception {
        return Map.of("username", subject, "claims", new com.fasterxml.jackson.databind.ObjectMapper()
                .writeValueAsString(claims));
    }

    private HttpResponse<String> stepUpAtIdp(String authorize, String subject, Map<String, Object> claims)
            throws Exception {
        assertThat(browser.get(authorize).body()).contains("name=\"username\"");
        HttpResponse<String> toCallback = browser.post(authorize, null, idpForm(subject, claims));
        assertThat(toCallback.statusCode()).isEqualTo(302);
        return browser.get(toCallback.headers().firstValue("Location").orElseThrow());
    }

    /** Opens the review, clicks Approve: the answer is the redirect to the identity provider. */
    private String approve() throws Exception {
        return approve(app);
    }

    /** As {@link #approve()}, on the replica {@code on}. */
    private String approve(AppHarness on) throws Exception {
        String page = browser.get(on.url("/review/T-1/email-1")).body();
        assertThat(page).contains("id=\"idp-stepup\"").doesNotContain("name=\"totp\"").doesNotContain("no-stepup");
        HttpResponse<String> r = browser.post(on.url("/review/T-1/email-1"), on.origin, Map.of(
                "csrf", ApprovalPageClient.input(page, "csrf"), "challenge", ApprovalPageClient.input(page, "challenge"),
                "decision", "APPROVE"));
        // a page that navigates to the provider (a redirected form post would break CSP form-action 'self')
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(on.published).as("nothing before the step-up").isEmpty();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("id=\"to-idp\" href=\"([^\"]+)\"")
                .matcher(r.body());
        assertThat(m.find()).isTrue();
        assertThat(r.body()).contains("<meta http-equiv=\"refresh\" content=\"0;url=");
        return m.group(1).replace("&amp;", "&").replace("&#x3D;", "=").replace("&#61;", "=");
    }

    @Test
    void shouldPublishAfterAFreshStrongAuthenticationAtTheIdentityProvider() throws Exception {
        String authorize = approve();
        assertThat(authorize).contains("prompt=login", "max_age=0", "acr_values=urn%3Aacme%3Amfa");

        HttpResponse<String> back = stepUpAtIdp(authorize, "alice-sub", claims("urn:acme:mfa", List.of("pwd", "otp"),
                now()));

        assertThat(back.statusCode()).isEqualTo(200);
        assertThat(back.body()).contains("You approved this exact action for one dispatch attempt.");
        assertThat(app.published).singleElement().satisfies(d -> {
            assertThat(d.getType()).isEqualTo(DecisionType.APPROVE);
            assertThat(d.getAuthMethod()).isEqualTo("oidc+idp-stepup");
            assertThat(d.getActionDigest()).isEqualTo(Digests.actionDigest(FrozenAction.of(email)));
            assertThat(DecisionSigning.verify(d, app.keys.getPublic())).isTrue();
        });
    }

    @Test
    void shouldApproveNothingWithoutTheRequiredAcr() throws Exception {
        String authorize = approve();
        HttpResponse<String> back = stepUpAtIdp(authorize, "alice-sub", claims(null, List.of("otp"), now()));

        assertThat(back.statusCode()).isEqualTo(409);
        assertThat(back.body()).contains("not of the required strength");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldApproveNothingWithAnAmrThatIsNotRequired() throws Exception {
        String authorize = approve();
        assertThat(stepUpAtIdp(authorize, "alice-sub", claims("urn:acme:mfa", List.of("pwd"), now())).statusCode())
                .isEqualTo(409);
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldApproveNothingWithAnOldOrMissingAuthTime() throws Exception {
        String authorize = approve();
        // the provider did not authenticate again: auth_time is the sign-in's, ten minutes ago
        HttpResponse<String> old = stepUpAtIdp(authorize, "alice-sub", claims("urn:acme:mfa", List.of("otp"),
                now() - 600));
        assertThat(old.statusCode()).isEqualTo(409);
        assertThat(old.body()).contains("did not authenticate you again just now");

        String again = approve();
        assertThat(stepUpAtIdp(again, "alice-sub", claims("urn:acme:mfa", List.of("otp"), 0)).statusCode())
                .isEqualTo(409);
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldApproveNothingWhenSomeoneElseAuthenticatesAtTheIdentityProvider() throws Exception {
        String authorize = approve();
        assertThat(stepUpAtIdp(authorize, "mallory-sub", claims("urn:acme:mfa", List.of("otp"), now())).statusCode())
                .isEqualTo(409);
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldNotReuseAStepUpForASecondDecision() throws Exception {
        String authorize = approve();
        HttpResponse<String> first = browser.post(authorize, null, idpForm("alice-sub",
                claims("urn:acme:mfa", List.of("otp"), now())));
        String callback = first.headers().firstValue("Location").orElseThrow();
        String cookie = browser.cookie(ApprovalApp.STEPUP_COOKIE);
        assertThat(browser.get(callback).statusCode()).isEqualTo(200);

        // the same callback with the same step-up cookie once more
        browser.setCookie(ApprovalApp.STEPUP_COOKIE, cookie);
        HttpResponse<String> replay = browser.get(callback);

        assertThat(replay.statusCode()).isIn(401, 409);
        assertThat(app.published).hasSize(1);
    }

    @Test
    void shouldLockStepUpOnEveryReplicaAfterRepeatedFailedStepUpsAtTheIdentityProvider() throws Exception {
        // a second replica: the same shared state and keys, its own port (requests alternate between the two)
        try (AppHarness other = new AppHarness(idp, app.state, MODE, app.sealer)) {
            other.book.proposal("T-1/email-1", email);
            other.book.receipt("T-1/email-1", Fixtures.waiting(email, app.clock.instant()));
            // the attacker has the session but not the person's MFA: every kind of failed answer counts
            assertThat(stepUpAtIdp(approve(app), "alice-sub", claims(null, List.of("otp"), now())).statusCode())
                    .as("no acr").isEqualTo(409);
            assertThat(stepUpAtIdp(approve(other), "alice-sub", claims("urn:acme:mfa", List.of("otp"),
                    now() - 600)).statusCode()).as("old auth_time").isEqualTo(409);
            assertThat(stepUpAtIdp(approve(app), "mallory-sub", claims("urn:acme:mfa", List.of("otp"), now()))
                    .statusCode()).as("another person").isEqualTo(409);
            String refusedAtIdp = approve(other);
            String state = query(refusedAtIdp, "state");
            assertThat(browser.get(other.url("/oidc/callback?error=access_denied&state=" + state)).statusCode())
                    .as("the provider's refusal").isEqualTo(409);
            assertThat(stepUpAtIdp(approve(app), "alice-sub", claims(null, List.of("pwd"), 0)).statusCode())
                    .as("neither acr nor auth_time").isEqualTo(409);

            // five failures: a perfect answer now publishes nothing, on either replica, and a new one cannot start
            String page = browser.get(other.url("/review/T-1/email-1")).body();
            HttpResponse<String> start = browser.post(other.url("/review/T-1/email-1"), other.origin, Map.of(
                    "csrf", ApprovalPageClient.input(page, "csrf"), "challenge", ApprovalPageClient.input(page, "challenge"),
                    "decision", "APPROVE"));
            assertThat(start.statusCode()).isEqualTo(409);
            assertThat(start.body()).contains("Too many failed step-ups");
            assertThat(app.published).isEmpty();
            assertThat(other.published).isEmpty();
            assertThat(app.stepUps.locked("demo", "alice-sub", app.clock.instant())).isTrue();

            // after the lock window the person's own strong authentication approves again
            app.clock.advance(Duration.ofMinutes(16));
            idp.nextSignIn("alice-sub", "demo", "alice@example.com");
            assertThat(browser.follow(app.url("/login?return=/queue")).body()).contains("Signed in");
            assertThat(stepUpAtIdp(approve(app), "alice-sub", claims("urn:acme:mfa", List.of("otp"), now()))
                    .statusCode()).isEqualTo(200);
            assertThat(app.published).hasSize(1);
        }
    }

    @Test
    void shouldRefuseAGoodTokenOnceStepUpIsLockedMidFlight() throws Exception {
        String authorize = approve();
        // the lock is reached (on any replica) while this step-up is at the identity provider
        for (int i = 0; i < io.actiongate.approver.stepup.StepUpStore.MAX_FAILURES; i++) {
            app.stepUps.recordFailure("demo", "alice-sub", app.clock.instant());
        }
        HttpResponse<String> back = stepUpAtIdp(authorize, "alice-sub", claims("urn:acme:mfa", List.of("otp"), now()));
        assertThat(back.statusCode()).isEqualTo(409);
        assertThat(back.body()).contains("Too many failed step-ups");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldCountACodeFromAnotherStepUpAsAFailure() throws Exception {
        // the attacker's own step-up at the IdP (its nonce and PKCE verifier), answered into another step-up
        String theirs = approve();
        HttpResponse<String> toCallback = browser.post(theirs, null, idpForm("alice-sub",
                claims("urn:acme:mfa", List.of("otp"), now())));
        String code = query(toCallback.headers().firstValue("Location").orElseThrow(), "code");
        String victims = approve();
        HttpResponse<String> back = browser.get(app.url("/oidc/callback?code=" + code + "&state="
                + query(victims, "state")));
        assertThat(back.statusCode()).isEqualTo(409);
        assertThat(app.published).isEmpty();
        assertThat(app.stepUps.recentFailures("demo", "alice-sub", app.clock.instant())).isEqualTo(1);
    }

    private static String query(String url, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[?&]" + name + "=([^&]+)").matcher(url);
        assertThat(m.find()).as(name + " in " + url).isTrue();
        return m.group(1);
    }

    @Test
    void shouldCancelWithoutAStepUp() throws Exception {
        String page = browser.get(app.url("/review/T-1/email-1")).body();
        HttpResponse<String> r = browser.post(app.url("/review/T-1/email-1"), app.origin, Map.of(
                "csrf", ApprovalPageClient.input(page, "csrf"), "challenge", ApprovalPageClient.input(page, "challenge"),
                "decision", "REJECT"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(app.published).singleElement().satisfies(d -> assertThat(d.getType())
                .isEqualTo(DecisionType.REJECT));
    }

    @Test
    void shouldReadTheModeAndRefuseNonsense() {
        IdpStepUp m = IdpStepUp.from(Map.of(IdpStepUp.MODE, "idp", IdpStepUp.ACR_VALUES, "a  b",
                IdpStepUp.AMR, "otp, hwk", IdpStepUp.MAX_AGE_SECONDS, "30"));
        assertThat(m.enabled()).isTrue();
        assertThat(m.acrParameter()).isEqualTo("a b");
        assertThat(m.amr()).containsExactly("otp", "hwk");
        assertThat(m.maxAge()).isEqualTo(Duration.ofSeconds(30));
        assertThat(IdpStepUp.from(Map.of()).enabled()).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> IdpStepUp.from(Map.of(IdpStepUp.MODE, "sms")))
                .hasMessageContaining(IdpStepUp.MODE);
    }
}
