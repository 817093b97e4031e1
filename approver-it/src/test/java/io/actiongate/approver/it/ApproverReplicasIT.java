package io.actiongate.approver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.ApproverService;
import io.actiongate.approver.FactorReset;
import io.actiongate.approver.state.KafkaState;
import io.actiongate.approver.Fixtures;
import io.actiongate.approver.TestIdp;
import io.actiongate.approver.stepup.Totp;
import io.actiongate.approver.web.Tokens;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Decision;
import io.actiongate.avro.Receipt;
import io.actiongate.testing.ApprovalPageClient;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * Two approval service replicas on one broker, one browser whose requests alternate between them (as behind a load
 * balancer): sign-in, enrolment and approval across replicas, a one-time code or a review form used on one refused
 * on the other, and enrolled factors kept over a restart of both.
 */
@Tag("system")
class ApproverReplicasIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path work;

    private final List<AutoCloseable> closeAfter = new ArrayList<>();
    private String prefix;
    private Map<String, String> config;

    @AfterEach
    void close() {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            try {
                closeAfter.get(i).close();
            } catch (Exception e) {
                // keep closing
            }
        }
    }

    private ApproverService replica() throws Exception {
        ApproverService s = ApproverService.start(config);
        closeAfter.add(s);
        assertThat(s.awaitReady(WAIT)).isTrue();
        return s;
    }

    private void propose(KafkaProducer<String, byte[]> producer, String call) throws Exception {
        AvroSetup.install();
        ActionProposal p = Fixtures.email("T-1", call);
        String key = ActionKey.format("T-1", call);
        producer.send(new ProducerRecord<>(prefix + "proposals", key,
                AvroSerdes.serde(ActionProposal.class).serialize(null, p))).get();
        producer.send(new ProducerRecord<>(prefix + "receipts", key,
                AvroSerdes.serde(Receipt.class).serialize(null, Fixtures.waiting(p, Instant.now())))).get();
    }

    private static String url(ApproverService s, String path) {
        return s.publicUrl() + path;
    }

    /** Opens the review on {@code s} until it has read the action. */
    private static String review(ApprovalPageClient browser, ApproverService s, String call) {
        String[] page = new String[1];
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            page[0] = browser.get(url(s, "/review/T-1/" + call)).body();
            return page[0].contains("id=\"decide\"");
        });
        return page[0];
    }

    private static Map<String, String> decision(String page, String totp) {
        Map<String, String> f = new HashMap<>();
        f.put("csrf", ApprovalPageClient.input(page, "csrf"));
        f.put("challenge", ApprovalPageClient.input(page, "challenge"));
        f.put("decision", "APPROVE");
        f.put("totp", totp);
        return f;
    }

    @Test
    void shouldShareSessionsFactorsCodesAndChallengesAcrossReplicasAndKeepFactorsOverARestart(TestInfo test)
            throws Exception {
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 3, (short) 1));
        KeyFiles.GeneratedKey key = KeyFiles.generate(Files.createDirectories(work.resolve("keys")), "approver-1");
        Path stateKey = Files.writeString(work.resolve("state.key"), "k1=" + Tokens.b64(Tokens.randomBytes(32)) + "\n");
        TestIdp idp = new TestIdp(false);
        closeAfter.add(idp);
        config = new HashMap<>();
        config.put("bootstrap.servers", KAFKA.bootstrapServers());
        config.put("topic.prefix", prefix);
        config.put(ApproverConfig.BIND_ADDRESS, "127.0.0.1");
        config.put(ApproverConfig.PORT, "0");
        config.put(ApproverConfig.PUBLIC_URL, "http://localhost:0");
        config.put(ApproverConfig.OIDC_ISSUER, idp.issuer());
        config.put(ApproverConfig.OIDC_CLIENT_ID, TestIdp.CLIENT_ID);
        config.put(ApproverConfig.SIGNING_KEY_FILE, key.privateKeyFile().toString());
        config.put(ApproverConfig.SIGNING_KEY_ID, "approver-1");
        config.put(ApproverConfig.STATE_KEY_FILE, stateKey.toString());
        config.put("connectors.smtp.from", "assistant@example.com");
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(pp, new StringSerializer(),
                new ByteArraySerializer());
        closeAfter.add(producer);
        propose(producer, "r-1");
        propose(producer, "r-2");
        propose(producer, "r-3");
        propose(producer, "r-4");

        ApproverService a = replica();
        ApproverService b = replica();
        ApprovalPageClient browser = new ApprovalPageClient();

        // sign in on A; the session cookie opens on B
        idp.nextSignIn("alice-sub", "demo", "alice@example.com");
        assertThat(browser.follow(url(a, "/login?return=/stepup")).body()).contains("Signed in");
        String stepup = browser.get(url(b, "/stepup")).body();
        assertThat(stepup).contains("id=\"totp-begin\"");
        String csrf = ApprovalPageClient.input(stepup, "csrf");

        // enrol: begin on B, confirm on A
        String pending = browser.post(url(b, "/stepup/totp"), b.config().origin(), Map.of("csrf", csrf)).body();
        byte[] secret = Totp.unbase32(ApprovalPageClient.text(pending, "totp-secret"));
        long step = Totp.step(Instant.now());
        assertThat(browser.post(url(a, "/stepup/totp/confirm"), a.config().origin(),
                Map.of("csrf", csrf, "totp", Totp.code(secret, step))).body()).contains("One-time code app set up.");

        // the code that confirmed the app is spent on both: the next one is the next step's (accepted one early)
        long codeStep = nextStep(step);
        String code = Totp.code(secret, codeStep);

        // a review opened on B, approved on A with a fresh code
        String pageB = review(browser, b, "r-1");
        HttpResponse<String> approved = browser.post(url(a, "/review/T-1/r-1"), a.config().origin(),
                decision(pageB, code));
        assertThat(approved.statusCode()).isEqualTo(200);
        assertThat(approved.body()).contains("You approved this exact action");

        // the same form replayed on B: its challenge is used, wherever it was used
        HttpResponse<String> replayed = browser.post(url(b, "/review/T-1/r-1"), b.config().origin(),
                decision(pageB, code));
        assertThat(replayed.statusCode()).isEqualTo(409);
        assertThat(replayed.body()).contains("already used");

        // the same one-time code on another review on B: refused (its step was used on A)
        String pageB2 = review(browser, b, "r-2");
        HttpResponse<String> reusedCode = browser.post(url(b, "/review/T-1/r-2"), b.config().origin(),
                decision(pageB2, code));
        assertThat(reusedCode.statusCode()).isEqualTo(409);
        assertThat(reusedCode.body()).contains("step-up verification failed");
        assertThat(decisionsFor("r-1")).singleElement().satisfies(d -> assertThat(
                Partitioning.home(d.getDecisionId(), 3)).as("the id sits on its action's partition of 3: no hop")
                .isEqualTo(Partitioning.home("T-1/r-1", 3)));
        assertThat(decisionsFor("r-2")).isEmpty();

        // both replicas restart: the factor is still there (sealed under the mounted key), the session too
        a.close();
        b.close();
        ApproverService c = replica();
        long restartStep = nextStep(codeStep);
        String pageC = review(browser, c, "r-3");
        assertThat(pageC).doesNotContain("id=\"no-stepup\"");
        HttpResponse<String> afterRestart = browser.post(url(c, "/review/T-1/r-3"), c.config().origin(),
                decision(pageC, Totp.code(secret, restartStep)));
        assertThat(afterRestart.statusCode()).isEqualTo(200);
        assertThat(decisionsFor("r-3")).singleElement()
                .satisfies(d -> assertThat(d.getAuthMethod()).isEqualTo("oidc+totp"));
        String state = new String(rawStateTopic(), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(state).as("the TOTP secret is never on the topic in the clear")
                .doesNotContain(Totp.base32(secret)).doesNotContain(Tokens.b64(secret));

        // the person lost their phone: the operator resets their factors, audited; the old app approves nothing
        FactorReset.Result reset = FactorReset.run(KAFKA.bootstrapServers(), Map.of(), KafkaState.defaultTopic(prefix), "demo",
                "alice-sub",
                "it-operator", "lost phone");
        assertThat(reset.hadFactors()).isTrue();
        // a code of a step never used, so that only the reset can refuse it
        long afterResetStep = nextStep(restartStep);
        String pageAfterReset = review(browser, c, "r-4");
        assertThat(pageAfterReset).contains("id=\"no-stepup\"");
        HttpResponse<String> oldApp = browser.post(url(c, "/review/T-1/r-4"), c.config().origin(),
                decision(pageAfterReset, Totp.code(secret, afterResetStep)));
        assertThat(oldApp.statusCode()).isEqualTo(409);
        assertThat(decisionsFor("r-4")).isEmpty();
        assertThat(readAll(prefix + "approver-state")).anySatisfy(r -> {
            assertThat(r.key()).isEqualTo(reset.auditKey());
            assertThat(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
                    .contains("\"operator\":\"it-operator\"", "\"subject\":\"alice-sub\"", "lost phone");
        });
    }

    /**
     * The step of the next code to use after {@code used}: {@code used + 1}, or the current step when later. The
     * service accepts a code one step early, so this waits only while {@code used + 1} is still two steps ahead,
     * not for a step boundary each time (each wait was up to 30 s).
     */
    private static long nextStep(long used) {
        await().atMost(Duration.ofSeconds(35)).until(() -> Totp.step(Instant.now()) >= used);
        return Math.max(used + 1, Totp.step(Instant.now()));
    }

    private List<Decision> decisionsFor(String call) {
        List<Decision> out = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> r : readAll(prefix + "decisions")) {
            if (r.key().equals(ActionKey.format("T-1", call))) {
                out.add(AvroSerdes.serde(Decision.class).deserialize(r.topic(), r.value()));
            }
        }
        return out;
    }

    private byte[] rawStateTopic() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (ConsumerRecord<String, byte[]> r : readAll(prefix + "approver-state")) {
            if (r.value() != null) {
                out.writeBytes(r.value());
            }
        }
        return out.toByteArray();
    }

    private List<ConsumerRecord<String, byte[]>> readAll(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long deadline = System.currentTimeMillis() + 10_000;
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
