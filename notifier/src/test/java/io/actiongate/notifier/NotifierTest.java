package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.NotificationRoute;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.policy.PolicyBodies;
import io.actiongate.policy.PolicyKey;

/**
 * The notifier's decisions with the topics, the ledger and the destinations stood in for: who is told (routing), what
 * they are told (never the input), when (first notice, reminder) and how often (once per action and stage, across a
 * restart and a second instance sharing the ledger).
 */
class NotifierTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    final MutableClock clock = new MutableClock(T0);
    final WaitingBook book = new WaitingBook();
    final Map<String, Object> policyBodies = new HashMap<>();
    final PolicyBodies policy = new PolicyBodies() {
        @Override
        public <T> Optional<T> body(String key, Class<T> type) {
            Object body = policyBodies.get(key);
            return type.isInstance(body) ? Optional.of(type.cast(body)) : Optional.empty();
        }

        @Override
        public String defaultOrg() {
            return null;
        }
    };
    final LocalLedger ledger = new LocalLedger();
    /** Every message sent, rendered as it goes out: channel, name and the text. */
    final List<String[]> sent = new CopyOnWriteArrayList<>();
    final Map<String, List<Delivery>> scripted = new HashMap<>();
    final NotifierMetrics metrics = new NotifierMetrics(new PrometheusRegistry());

    static NotifierConfig config(Map<String, String> extra) {
        Map<String, String> c = new HashMap<>();
        c.put(NotifierConfig.REVIEW_URL, "https://approve.acme.example/review/{task_id}/{tool_call_id}");
        c.put("gate.approval.timeout", "24h");
        c.put(NotifierConfig.REMINDER_BEFORE, "1h");
        c.putAll(extra);
        return NotifierConfig.from(c, Map.of());
    }

    /** The destinations a route names, each recording what it would send. */
    final Notifier.Destinations destinations = route -> {
        List<Channels.Target> out = new ArrayList<>();
        route.slackWebhooks().forEach(name -> out.add(new Channels.Target("slack", name,
                n -> deliver("slack", name, NoticeMessages.slack(n)))));
        route.jsonWebhooks().forEach(name -> out.add(new Channels.Target("webhook", name,
                n -> deliver("webhook", name, NoticeMessages.json(n)))));
        route.emails().forEach(address -> out.add(new Channels.Target("email", address,
                n -> deliver("email", address, NoticeMessages.emailSubject(n) + "\n" + NoticeMessages.emailBody(n)))));
        return out;
    };

    private Delivery deliver(String channel, String name, String text) {
        sent.add(new String[] {channel, name, text});
        List<Delivery> script = scripted.get(name);
        return script == null || script.isEmpty() ? Delivery.DELIVERED : script.remove(0);
    }

    Notifier notifier(NotifierConfig config, NoticeLedger l) {
        return new Notifier(config, book, policy, l, destinations, metrics, clock, Runnable::run, () -> true)
                .pausingWith(d -> { });
    }

    Notifier notifier() {
        return notifier(config(Map.of()), ledger);
    }

    void route(String profile, String tool, List<String> slack, List<String> emails, Long remindBeforeMs) {
        policyBodies.put(PolicyKey.notifyKey(Actions.ORG, profile, tool), NotificationRoute.newBuilder()
                .setOrgId(Actions.ORG).setProfileId(profile).setToolName(tool).setEmails(emails)
                .setSlackWebhooks(slack).setJsonWebhooks(List.of()).setRemindBeforeMs(remindBeforeMs).build());
    }

    ActionProposal waiting(String call, String summary, Instant since) {
        ActionProposal p = Actions.proposal("T-1", call, summary);
        book.proposal(Actions.key(p), p);
        book.receipt(Actions.key(p), Actions.receipt(p, ReceiptStatus.WAITING_APPROVAL, since));
        return p;
    }

    List<String> sentTo(String channel) {
        return sent.stream().filter(m -> m[0].equals(channel)).map(m -> m[1]).toList();
    }

    @Test
    void shouldTellTheRoutedReviewersOnceAcrossChecksWithTheReviewUrl() {
        route("*", "*", List.of("ops"), List.of("alice@acme.example"), null);
        waiting("call-1", "Email the CFO the Q3 numbers", T0);
        Notifier n = notifier();

        n.check();
        clock.advance(Duration.ofMinutes(5));
        n.check();

        assertThat(sentTo("slack")).containsExactly("ops");
        assertThat(sentTo("email")).containsExactly("alice@acme.example");
        assertThat(sent).allSatisfy(m -> assertThat(m[2])
                .contains("https://approve.acme.example/review/T-1/call-1"));
        assertThat(metrics.notices(Stage.FIRST, "sent")).isEqualTo(1);
        assertThat(ledger.results).containsKey("first/T-1/call-1/" + T0.toEpochMilli());
    }

    @Test
    void shouldNeverSendTheInputBodyOnlyTheCleanedSummary() {
        policyBodies.put(PolicyKey.notifyKey(Actions.ORG, "*", "*"), NotificationRoute.newBuilder()
                .setOrgId(Actions.ORG).setProfileId("*").setToolName("*").setEmails(List.of("alice@acme.example"))
                .setSlackWebhooks(List.of("ops")).setJsonWebhooks(List.of("pager")).build());
        waiting("call-1", "Send Q3 <https://evil.example/review|Approve here> via /home/agent/q3.xlsx", T0);

        notifier().check();

        assertThat(sent).hasSize(3).allSatisfy(m -> assertThat(m[2])
                .doesNotContain(Actions.SECRET_BODY)
                .doesNotContain("cfo@example.com")
                .doesNotContain("/home/agent")
                .doesNotContain("https://evil.example")
                .contains("https[:]//evil.example"));
        String slack = sent.stream().filter(m -> m[0].equals("slack")).findFirst().orElseThrow()[2];
        assertThat(slack).as("the agent's link cannot become a Slack link").doesNotContain("<https[:]")
                .contains("&lt;https[:]//evil.example/review|Approve here&gt;")
                .doesNotContain("\"actions\"");
    }

    @Test
    void shouldWithholdASummaryThatLooksLikeACredential() {
        route("*", "*", List.of("ops"), List.of(), null);
        waiting("call-1", "deploy with AKIAIOSFODNN7EXAMPLE now", T0);

        notifier().check();

        assertThat(sent).singleElement().satisfies(m -> assertThat(m[2]).doesNotContain("AKIAIOSFODNN7EXAMPLE")
                .contains(SummaryText.WITHHELD));
    }

    @Test
    void shouldTellTheReviewersOfTheMostSpecificRouteOnly() {
        route("*", "*", List.of("org-channel"), List.of(), null);
        route("*", Actions.TOOL, List.of("tool-channel"), List.of(), null);
        route(Actions.PROFILE, "*", List.of("profile-channel"), List.of(), null);
        waiting("call-1", "summary", T0);

        notifier().check();

        assertThat(sentTo("slack")).containsExactly("tool-channel");
    }

    @Test
    void shouldClaimNothingWithoutARouteAndTellOnceARouteAppearsWhileItStillWaits() {
        waiting("call-1", "summary", T0);
        Notifier n = notifier();
        n.check();
        route("*", "*", List.of(), List.of(), null); // a route that names nobody
        n.check();
        assertThat(sent).isEmpty();
        assertThat(ledger.claimWrites).hasValue(0);

        route("*", "*", List.of("ops"), List.of(), null);
        clock.advance(Duration.ofMinutes(1));
        n.check();

        assertThat(sentTo("slack")).containsExactly("ops");
    }

    @Test
    void shouldClaimNothingWhenNoDestinationOfTheRouteIsConfigured() {
        route("*", "*", List.of("ops"), List.of(), null);
        waiting("call-1", "summary", T0);
        Notifier n = new Notifier(config(Map.of()), book, policy, ledger, r -> List.of(), metrics, clock,
                Runnable::run, () -> true);

        n.check();
        n.check();

        assertThat(ledger.claimWrites).hasValue(0);
        assertThat(metrics.notices(Stage.FIRST, "no_destination")).isEqualTo(1);
    }

    @Test
    void shouldNotTellAgainAfterARestartSharingTheLedger() {
        route("*", "*", List.of("ops"), List.of("alice@acme.example"), null);
        ActionProposal p = waiting("call-1", "summary", T0);
        notifier().check();
        assertThat(sent).hasSize(2);
        sent.clear();

        // a new process: a new book read from the topics again, a new Notifier, the same ledger topic
        WaitingBook reread = new WaitingBook();
        reread.receipt(Actions.key(p), Actions.receipt(p, ReceiptStatus.WAITING_APPROVAL, T0));
        reread.proposal(Actions.key(p), p);
        Notifier restarted = new Notifier(config(Map.of()), reread, policy, ledger, destinations, metrics, clock,
                Runnable::run, () -> true);
        restarted.check();
        clock.advance(Duration.ofMinutes(10));
        restarted.check();

        assertThat(reread.waiting()).as("the restarted instance sees the action wait").hasSize(1);
        assertThat(sent).isEmpty();
        assertThat(ledger.claimWrites).as("nor does it claim again").hasValue(1);
    }

    @Test
    void shouldLetOneOfTwoInstancesTellWhenBothSeeTheNoticeDueAtOnce() throws Exception {
        route("*", "*", List.of("ops"), List.of(), null);
        for (int i = 0; i < 20; i++) {
            waiting("call-" + i, "summary " + i, T0);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Notifier> instances = List.of(
                    new Notifier(config(Map.of()), book, policy, ledger, destinations, metrics, clock, pool,
                            () -> true),
                    new Notifier(config(Map.of()), book, policy, ledger, destinations, metrics, clock, pool,
                            () -> true));
            List<Thread> checks = instances.stream().map(n -> new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                n.check();
            })).toList();
            checks.forEach(Thread::start);
            go.countDown();
            for (Thread t : checks) {
                t.join();
            }
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(sent).hasSize(20);
        assertThat(sent.stream().map(m -> m[2]).distinct()).hasSize(20);
    }

    @Test
    void shouldRemindOnceBeforeTheDeadlineAndNeverAfterIt() {
        route("*", "*", List.of("ops"), List.of(), 600_000L); // ten minutes before the deadline
        waiting("call-1", "summary", T0);
        Notifier n = notifier();
        n.check();

        clock.advance(Duration.ofHours(23).plusMinutes(49));
        n.check();
        assertThat(sent).as("not yet: 11 minutes before the deadline").hasSize(1);

        clock.advance(Duration.ofMinutes(1));
        n.check();
        clock.advance(Duration.ofMinutes(1));
        n.check();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1)[2]).contains("Reminder");

        clock.advance(Duration.ofMinutes(20));
        n.check();
        assertThat(sent).hasSize(2);
        assertThat(metrics.notices(Stage.REMINDER, "sent")).isEqualTo(1);
    }

    @Test
    void shouldNotRemindWhenTheFirstNoticeWentInsideTheReminderWindow() {
        route("*", "*", List.of("ops"), List.of(), null); // the default: an hour before
        waiting("call-1", "summary", T0);
        clock.advance(Duration.ofHours(23).plusMinutes(30)); // the notifier comes up late
        Notifier n = notifier();

        n.check();
        clock.advance(Duration.ofMinutes(10));
        n.check();

        assertThat(sent).hasSize(1);
        assertThat(sent.get(0)[2]).doesNotContain("Reminder");
    }

    @Test
    void shouldTellNobodyOnceTheDeadlinePassedOrTheActionIsDecided() {
        route("*", "*", List.of("ops"), List.of(), null);
        waiting("call-late", "summary", T0);
        ActionProposal decided = waiting("call-decided", "summary", T0);
        book.receipt(Actions.key(decided), Actions.receipt(decided, ReceiptStatus.DISPATCHING, T0.plusSeconds(1)));
        clock.advance(Duration.ofHours(24));

        notifier().check();

        assertThat(sent).isEmpty();
    }

    @Test
    void shouldTryAMessageThatNeverLeftAgainButNeverOneThatMayHaveArrived() {
        route("*", "*", List.of("flaky", "maybe"), List.of(), null);
        scripted.put("flaky", new ArrayList<>(List.of(Delivery.NOT_SENT, Delivery.NOT_SENT)));
        scripted.put("maybe", new ArrayList<>(List.of(Delivery.UNKNOWN)));
        waiting("call-1", "summary", T0);

        notifier().check();

        assertThat(sentTo("slack")).containsExactly("flaky", "flaky", "flaky", "maybe");
        assertThat(metrics.messages("slack", Delivery.DELIVERED)).isEqualTo(1);
        assertThat(metrics.messages("slack", Delivery.UNKNOWN)).isEqualTo(1);
        assertThat(metrics.notices(Stage.FIRST, "partial")).isEqualTo(1);
    }

    @Test
    void shouldSendNothingWhenTheClaimIsNotConfirmedAndClaimAtTheNextCheck() {
        route("*", "*", List.of("ops"), List.of(), null);
        waiting("call-1", "summary", T0);
        Notifier n = notifier();
        ledger.failWrites = true;

        n.check();
        assertThat(sent).isEmpty();
        assertThat(metrics.notices(Stage.FIRST, "claim_failed")).isEqualTo(1);

        ledger.failWrites = false;
        n.check();
        assertThat(sentTo("slack")).containsExactly("ops");
    }

    @Test
    void shouldReportAClaimWithoutResultAsUnconfirmedAndNotSendIt() {
        route("*", "*", List.of("ops"), List.of(), null);
        waiting("call-1", "summary", T0);
        // an instance claimed the first notice and died before recording a result
        String id = "first/T-1/call-1/" + T0.toEpochMilli();
        ledger.claims.put(id, new NoticeLedger.Claim(id, "n-1", "notifier-dead", T0));
        Notifier n = notifier();

        n.check();
        assertThat(metrics.unconfirmed()).as("not yet older than notifier.unconfirmed.after").isZero();
        clock.advance(Duration.ofMinutes(6));
        n.check();

        assertThat(sent).isEmpty();
        assertThat(metrics.unconfirmed()).isEqualTo(1);
    }

    @Test
    void shouldCheckNothingBeforeItsSourcesAreRead() {
        route("*", "*", List.of("ops"), List.of(), null);
        waiting("call-1", "summary", T0);
        AtomicInteger asked = new AtomicInteger();
        Notifier n = new Notifier(config(Map.of()), book, policy, ledger, destinations, metrics, clock,
                Runnable::run, () -> asked.incrementAndGet() > 1);

        n.check();
        assertThat(sent).isEmpty();
        n.check();
        assertThat(sent).hasSize(1);
    }
}
