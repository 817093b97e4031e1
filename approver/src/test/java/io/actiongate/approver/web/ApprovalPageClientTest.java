package io.actiongate.approver.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.actiongate.approver.Fixtures;
import io.actiongate.approver.TestIdp;
import io.actiongate.approver.state.LocalState;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;
import io.actiongate.testing.ApprovalPageClient;

/**
 * The scripted page client that chaos, the dev kit's demo and these tests share, against the real approval pages:
 * a person signs in, sets up a one-time code app with the secret the page shows, and approves or cancels a review
 * through its form; the client stops waiting for a review that is no longer waiting and says what a page that never
 * offers the form shows.
 */
class ApprovalPageClientTest {

    /** One provider for the class: each test queues the identity of its next sign-in. */
    private static final TestIdp IDP = new TestIdp(false);
    private final AppHarness app = new AppHarness(IDP);
    private final URI page = URI.create(app.origin);
    /** A person whose code app reads the service's clock, so a test moves both by hand. */
    private final ApprovalPageClient person = new ApprovalPageClient(List.of(page), Duration.ofSeconds(5), app.clock);

    ApprovalPageClientTest() throws Exception {
        waiting("T-1", "email-1");
    }

    @AfterAll
    static void stopTheProvider() {
        IDP.close();
    }

    @AfterEach
    void stopTheService() {
        app.close();
    }

    private ActionProposal waiting(String task, String call) {
        ActionProposal p = Fixtures.email(task, call);
        app.book.proposal(ActionKey.format(task, call), p);
        app.book.receipt(ActionKey.format(task, call), Fixtures.waiting(p, app.clock.instant()));
        return p;
    }

    @Test
    void shouldApproveTheExactActionWithACodeFromTheSecretThePageShowed() throws Exception {
        IDP.nextSignIn("alice-sub", Fixtures.ORG, "alice@example.com");
        assertThat(person.signIn(page, "/queue").body()).contains("Signed in");
        person.enrolTotp(page);
        app.clock.advance(Duration.ofSeconds(30)); // the set-up took this step's code

        ApprovalPageClient.Decided decided = person.decide(page, "T-1/email-1", "APPROVE", Duration.ofSeconds(5));

        assertThat(decided.answer()).isEqualTo("Decision published");
        assertThat(decided.recipient()).isEqualTo(Fixtures.TO);
        assertThat(decided.subject()).isEqualTo(Fixtures.SUBJECT);
        assertThat(decided.body()).isEqualTo(Fixtures.BODY);
        String digest = Digests.actionDigest(FrozenAction.of(Fixtures.email("T-1", "email-1")));
        assertThat(decided.actionDigest()).isEqualTo(digest);
        assertThat(app.published).singleElement().satisfies(d -> {
            assertThat(DecisionSigning.verify(d, app.keys.getPublic())).isTrue();
            assertThat(d.getType()).isEqualTo(DecisionType.APPROVE);
            assertThat(d.getAuthMethod()).isEqualTo("oidc+totp");
            assertThat(d.getApproverSubject()).isEqualTo("alice-sub");
            assertThat(d.getActionDigest()).isEqualTo(digest);
        });
    }

    @Test
    void shouldSayWhatThePageRefusedAndNeedACodeAppToApprove() throws Exception {
        MutableClock phone = new MutableClock(app.clock.instant());
        ApprovalPageClient alice = new ApprovalPageClient(List.of(page), Duration.ofSeconds(5), phone);
        assertThatThrownBy(() -> alice.decisionForm("<input name=\"csrf\" value=\"c\">"
                + "<input name=\"challenge\" value=\"h\">", "APPROVE"))
                .isInstanceOf(ApprovalPageClient.PageException.class).hasMessageContaining("no code app was set up");
        IDP.nextSignIn("alice-sub", Fixtures.ORG, "alice@example.com");
        alice.signIn(page, "/queue");
        alice.enrolTotp(page);
        // the phone's clock runs three steps ahead of the service's: its code is outside the window
        phone.advance(Duration.ofSeconds(90));

        ApprovalPageClient.Decided refused = alice.decide(page, "T-1/email-1", "APPROVE", Duration.ofSeconds(5));

        assertThat(refused.answer()).startsWith("HTTP 4").doesNotEndWith("null");
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldCancelWithoutACode() throws Exception {
        IDP.nextSignIn("bob-sub", Fixtures.ORG, "bob@example.com");
        person.signIn(page, "/queue");

        assertThat(person.decide(page, "T-1/email-1", "REJECT", Duration.ofSeconds(5)).answer())
                .isEqualTo("Decision published");
        assertThat(app.published).singleElement()
                .satisfies(d -> assertThat(d.getType()).isEqualTo(DecisionType.REJECT));
    }

    @Test
    void shouldStopWaitingForAReviewNoLongerWaitingAndSayWhatANeverOfferedOneShows() throws Exception {
        IDP.nextSignIn("alice-sub", Fixtures.ORG, "alice@example.com");
        person.signIn(page, "/queue");
        app.book.receipt("T-1/email-1", Fixtures.receipt(Fixtures.email("T-1", "email-1"), ReceiptStatus.EXPIRED,
                app.clock.instant()));

        assertThat(person.awaitForm(page.resolve("/review/T-1/email-1"), Duration.ofSeconds(5))).isNull();
        assertThatThrownBy(() -> person.decide(page, "T-1/email-1", "REJECT", Duration.ofSeconds(5)))
                .isInstanceOf(ApprovalPageClient.PageException.class).hasMessageContaining("status is EXPIRED");
        // an action the service has not read yet is waited for, then named with what its page shows
        long start = System.nanoTime();
        assertThatThrownBy(() -> person.awaitForm(page.resolve("/review/T-9/nobody"), Duration.ofMillis(300)))
                .isInstanceOf(ApprovalPageClient.PageException.class)
                .hasMessageStartingWith("the review /review/T-9/nobody offered no decision form within 0 s "
                        + "(HTTP 200, status unknown: ")
                .hasMessageContaining("has not seen both the proposal");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(app.published).isEmpty();
    }

    @Test
    void shouldSignInAtAnInteractiveProvidersLoginForm() throws Exception {
        try (TestIdp interactive = new TestIdp(true); AppHarness service = new AppHarness(interactive, new LocalState())) {
            URI at = URI.create(service.origin);
            ApprovalPageClient carol = new ApprovalPageClient(at);
            assertThat(carol.signInAtLoginForm(at, "carol-sub",
                    "{\"org\":\"" + Fixtures.ORG + "\",\"email\":\"carol@example.com\"}")).isEqualTo("carol@example.com");
            assertThat(carol.cookie(ApprovalPageClient.SESSION_COOKIE)).isNotNull();
        }
    }

    @Test
    void shouldSendTheServicesCookiesToItsOwnOriginsOnlyAndNeedOneToBeSignedIn() throws Exception {
        IDP.nextSignIn("alice-sub", Fixtures.ORG, "alice@example.com");
        person.signIn(page, "/queue");
        List<String> cookieHeaders = new CopyOnWriteArrayList<>();
        HttpServer elsewhere = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        elsewhere.createContext("/", ex -> {
            cookieHeaders.add(String.valueOf(ex.getRequestHeaders().getFirst("Cookie")));
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Set-Cookie", "tracker=1; Path=/");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        elsewhere.start();
        try {
            URI other = URI.create("http://localhost:" + elsewhere.getAddress().getPort() + "/");
            person.get(other);
            ApprovalPageClient anyHost = new ApprovalPageClient();
            anyHost.setCookie(ApprovalPageClient.SESSION_COOKIE, person.cookie(ApprovalPageClient.SESSION_COOKIE));
            anyHost.get(other);

            assertThat(cookieHeaders).containsExactly("null",
                    ApprovalPageClient.SESSION_COOKIE + "=" + person.cookie(ApprovalPageClient.SESSION_COOKIE));
            assertThat(person.cookie("tracker")).isNull();
            assertThat(anyHost.cookie("tracker")).isEqualTo("1");
            // a "sign-in" that ends without the service's session cookie is an error, not a signed-in person
            assertThatThrownBy(() -> new ApprovalPageClient(other).signIn(other, "/queue"))
                    .isInstanceOf(ApprovalPageClient.PageException.class)
                    .hasMessage("signed in, but the approval page set no session cookie (HTTP 200 from /login)");
        } finally {
            elsewhere.stop(0);
        }
    }
}
