package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import io.actiongate.avro.NotificationRoute;
import io.actiongate.client.ActionGateClient;
import io.actiongate.client.ActionReceipt;
import io.actiongate.client.GateFixture;
import io.actiongate.client.ReceiptState;
import io.actiongate.client.Until;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.policy.PolicyKey;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;

/**
 * The notifier against the real gate on an embedded broker, a Slack webhook stand-in and GreenMail: a waiting action
 * produces exactly one Slack message and one email with its review URL and no input body, also across a restart of
 * the notifier, and exactly one reminder when two instances run at once. Its ledger on the broker: one winner per
 * notice among racing instances.
 */
class NotifierIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    static final String INPUT_BODY = "wire 40k to account 7731 INPUT-BODY-MARKER";
    static final String REVIEWER = "reviewer@example.com";
    /** The reminder goes this long after the action began waiting (24 h approval timeout at the gate). */
    static final Duration REMIND_AFTER = Duration.ofSeconds(10);

    @TempDir
    static Path dir;

    static GateFixture gate;
    static ActionGateClient client;
    static RecordingWebhook slack;
    static GreenMail mail;
    static Map<String, String> config;

    @BeforeAll
    static void start(TestInfo test) throws Exception {
        gate = new GateFixture(KAFKA, TestNames.topicPrefix(test), TestNames.applicationId(test), dir.resolve("state"));
        client = gate.client();
        slack = new RecordingWebhook();
        mail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort());
        mail.start();
        Path slackUrl = Files.writeString(dir.resolve("slack-team-url"), slack.url("/services/T0/B0/team") + "\n");
        config = new HashMap<>();
        config.put("bootstrap.servers", KAFKA.bootstrapServers());
        config.put("topic.prefix", gate.prefix());
        config.put(NotifierConfig.REVIEW_URL, "https://approve.acme.example/review/{task_id}/{tool_call_id}");
        config.put(NotifierConfig.CHECK_INTERVAL, "200ms");
        config.put(NotifierConfig.SLACK_PREFIX + "team.url", "file:" + slackUrl);
        config.put(NotifierConfig.SMTP_PREFIX + "host", "127.0.0.1");
        config.put(NotifierConfig.SMTP_PREFIX + "port", Integer.toString(mail.getSmtp().getPort()));
        config.put(NotifierConfig.SMTP_PREFIX + "from", "actiongate@acme.example");
        config.put(NotifierConfig.SMTP_PREFIX + "allowed-domains", "example.com");
        gate.policy(PolicyKey.notifyKey(GateFixture.ORG, "*", "*"), "notify", NotificationRoute.newBuilder()
                .setOrgId(GateFixture.ORG).setProfileId("*").setToolName("*").setEmails(List.of(REVIEWER))
                .setSlackWebhooks(List.of("team")).setJsonWebhooks(List.of())
                .setRemindBeforeMs(Duration.ofHours(24).minus(REMIND_AFTER).toMillis()).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (slack != null) {
            slack.close();
        }
        if (mail != null) {
            mail.stop();
        }
        if (gate != null) {
            gate.close();
        }
    }

    /** An instance on {@code clock}: the test moves it to when the reminder is due, instead of waiting for it. */
    private static NotifierService notifier(String instance, Clock clock) {
        Map<String, String> c = new HashMap<>(config);
        c.put(NotifierConfig.INSTANCE_ID, instance);
        return NotifierService.start(NotifierConfig.from(c), new NotifierMetrics(new PrometheusRegistry()), clock);
    }

    /**
     * Returns once each of {@code instances} has run a whole check of the waiting actions (with its sources read)
     * that began after this call: each check sets the waiting-actions gauge, so the gauge is set to -1 and read back
     * overwritten, twice, since the first overwrite may come from a check that was already under way.
     */
    private static void checkedSince(NotifierService... instances) {
        for (int round = 0; round < 2; round++) {
            for (NotifierService n : instances) {
                n.metrics().waiting(-1, -1);
            }
            await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> java.util.Arrays.stream(instances).allMatch(n -> n.metrics().waiting(true) >= 0));
        }
    }

    private static List<String> slackFor(String call) {
        return slack.posts().stream().map(RecordingWebhook.Post::body).filter(b -> b.contains(call)).toList();
    }

    private static List<String> mailFor(String call) {
        return java.util.Arrays.stream(mail.getReceivedMessages()).map(GreenMailUtil::getWholeMessage)
                .filter(m -> m.contains(call)).toList();
    }

    /** The first notices among {@code messages} (a reminder says so in its Slack text and its email subject). */
    private static List<String> first(List<String> messages) {
        return messages.stream().filter(m -> !m.contains("Reminder")).toList();
    }

    @Test
    void shouldTellOnceAcrossARestartAndRemindOnceWithTwoInstances() throws Exception {
        String call = "n-restart-1";
        ActionReceipt waiting = client.propose(GateFixture.send(call, "{\"to\":\"cfo@example.com\",\"body\":\""
                + INPUT_BODY + "\"}").build(), Until.WAITING_APPROVAL, Duration.ofSeconds(60)).await();
        assertThat(waiting.state()).isEqualTo(ReceiptState.WAITING_APPROVAL);
        // the notifiers' clock starts when the action began waiting and moves only when the test moves it
        MutableClock clock = new MutableClock(waiting.updatedAt());
        String review = "https://approve.acme.example/review/T-1/" + call;

        NotifierService first = notifier("notifier-a", clock);
        try (first) {
            await().atMost(Duration.ofSeconds(30)).until(() -> slackFor(call).size() == 1 && mailFor(call).size() == 1);
        }
        assertThat(slackFor(call).get(0)).contains(review).doesNotContain("INPUT-BODY-MARKER")
                .contains("Email ops that the disk is full").doesNotContain("Reminder");
        assertThat(mailFor(call).get(0)).contains(review).doesNotContain("INPUT-BODY-MARKER")
                .contains("Subject: Approval needed: send_email (acme)").contains("To: " + REVIEWER);

        // a restart reads the claim back and tells nobody again (however soon the reminder is due: first notices and
        // reminders are counted apart); then a second instance runs beside it, and one of the two reminds, once, and
        // not before it is due: both check a millisecond before it first
        clock.advance(REMIND_AFTER.minusMillis(1));
        try (NotifierService restarted = notifier("notifier-a", clock);
             NotifierService second = notifier("notifier-b", clock)) {
            assertThat(restarted.awaitReady(Duration.ofSeconds(30))).isTrue();
            assertThat(second.awaitReady(Duration.ofSeconds(30))).isTrue();
            checkedSince(restarted, second);
            assertThat(slackFor(call)).hasSize(1);
            assertThat(mailFor(call)).hasSize(1);

            clock.advance(Duration.ofMillis(1));
            await().atMost(Duration.ofSeconds(30)).until(() -> slackFor(call).size() == 2 && mailFor(call).size() == 2
                    && restarted.metrics().notices(Stage.REMINDER, "sent")
                    + second.metrics().notices(Stage.REMINDER, "sent") == 1);
            checkedSince(restarted, second);
            assertThat(first(slackFor(call))).hasSize(1);
            assertThat(first(mailFor(call))).hasSize(1);
            assertThat(slackFor(call)).hasSize(2);
            assertThat(mailFor(call)).hasSize(2);
            assertThat(slackFor(call).get(1)).contains("Reminder").contains(review);
            assertThat(restarted.metrics().notices(Stage.REMINDER, "sent")
                    + second.metrics().notices(Stage.REMINDER, "sent")).isEqualTo(1);
            assertThat(restarted.metrics().notices(Stage.FIRST, "sent") + second.metrics().notices(Stage.FIRST,
                    "sent")).isZero();
            assertThat(restarted.ready() && second.ready()).isTrue();
            assertThat(restarted.failure()).isNull();
        }
    }

    @Test
    void shouldLetOneClaimOfEachNoticeWinAmongRacingLedgers() throws Exception {
        String topic = gate.prefix() + "notifier-race-state";
        KafkaClients clients = KafkaClients.of(KAFKA.bootstrapServers(), Map.of());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ids.add("first/T-race/c-" + i + "/1");
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try (KafkaLedger a = new KafkaLedger(clients, topic, Duration.ofDays(7));
             KafkaLedger b = new KafkaLedger(clients, topic, Duration.ofDays(7))) {
            assertThat(a.awaitCaughtUp(Duration.ofSeconds(30)) && b.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
            List<Future<Boolean>> wins = new ArrayList<>();
            for (String id : ids) {
                for (KafkaLedger l : List.of(a, b, a)) {
                    Callable<Boolean> claim = () -> l.tryClaim(id, "racer", Instant.now());
                    wins.add(pool.submit(claim));
                }
            }
            int won = 0;
            for (Future<Boolean> w : wins) {
                won += w.get() ? 1 : 0;
            }
            assertThat(won).as("one winner per notice").isEqualTo(ids.size());
            a.result(new NoticeLedger.Result(ids.get(0), a.claim(ids.get(0)).nonce(), Instant.now(), 1, 1));
        } finally {
            pool.shutdownNow();
        }
        // a later instance reads every claim back, and the one result
        try (KafkaLedger later = new KafkaLedger(clients, topic, Duration.ofDays(7))) {
            assertThat(later.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
            assertThat(ids).allSatisfy(id -> assertThat(later.claimed(id)).isTrue());
            assertThat(later.tryClaim(ids.get(1), "late", Instant.now())).isFalse();
            assertThat(later.unconfirmed(Instant.now().plusSeconds(60), Duration.ofSeconds(30)))
                    .extracting(NoticeLedger.Claim::id).doesNotContain(ids.get(0)).contains(ids.get(1));
        }
    }
}
