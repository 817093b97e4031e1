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
import java.util.function.Predicate;

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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.ApproverService;
import io.actiongate.approver.Fixtures;
import io.actiongate.approver.TestIdp;
import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Decision;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.testing.ApprovalPageClient;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.dev.DemoPolicy;
import io.actiongate.dev.DevStack;
import io.actiongate.key.ActionKey;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * The review after a conflicting proposal, against the real gate and without a browser: a raw producer publishes the
 * original and then another body under the same ids; the gate keeps the original waiting and publishes an identity
 * conflict. The review shows the original (the gate's frozen action), says, from the gate's conflict, that a
 * conflicting proposal was refused, and the original can still be approved.
 * System tier: the approval service against the real gate, end to end.
 */
@Tag("system")
class ApproverConflictIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String KEY_ID = "approver-conflict-it";
    private static final String TASK = "T-1";
    private static final String CALL = "conflict-1";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path work;

    private String prefix;

    @Test
    void shouldShowTheGatesFrozenOriginalAndItsRefusedConflictAndStillDecideTheOriginal(TestInfo test)
            throws Exception {
        AvroSetup.install();
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 3, (short) 1));
        DevStack.publish(KAFKA.bootstrapServers(), prefix, DemoPolicy.entries());
        Path trusted = Files.createDirectories(work.resolve("trusted"));
        KeyFiles.GeneratedKey key = KeyFiles.generate(Files.createDirectories(work.resolve("approver")), KEY_ID);
        Files.move(key.publicKeyFile(), trusted.resolve(KEY_ID + KeyFiles.PUBLIC_SUFFIX));

        Map<String, String> gate = new HashMap<>();
        gate.put("bootstrap.servers", KAFKA.bootstrapServers());
        gate.put("topic.prefix", prefix);
        gate.put("application.id", TestNames.applicationId(test));
        gate.put("state.dir", Files.createDirectories(work.resolve("state")).toString());
        gate.put("http.port", "0");
        gate.put("http.bind.address", "127.0.0.1");
        gate.put("node.shutdown.timeout.ms", "5000");
        gate.put("gate.trusted.keys.dir", trusted.toString());
        gate.put("gate.punctuate.interval", "200ms");
        gate.put("gate.streams.commit.interval.ms", "100");
        gate.put("connectors.smtp.from", "actiongate@demo.local");
        gate.put("connectors.smtp.allowed-domains", "example.com");

        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        try (ActiongateNode node = ActiongateNode.start(gate, Role.parse("gate"));
             TestIdp idp = new TestIdp(false);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(pp, new StringSerializer(),
                     new ByteArraySerializer())) {
            await().atMost(WAIT).until(node::ready);
            ActionProposal original = Fixtures.email(TASK, CALL);
            propose(producer, original);
            Receipt waiting = awaitRecord("receipts", Receipt.class,
                    r -> r.getStatus() == ReceiptStatus.WAITING_APPROVAL);

            Map<String, String> c = new HashMap<>();
            c.put("bootstrap.servers", KAFKA.bootstrapServers());
            c.put("topic.prefix", prefix);
            c.put(ApproverConfig.BIND_ADDRESS, "127.0.0.1");
            c.put(ApproverConfig.PORT, "0");
            c.put(ApproverConfig.PUBLIC_URL, "http://localhost:0");
            c.put(ApproverConfig.OIDC_ISSUER, idp.issuer());
            c.put(ApproverConfig.OIDC_CLIENT_ID, TestIdp.CLIENT_ID);
            c.put(ApproverConfig.SIGNING_KEY_FILE, key.privateKeyFile().toString());
            c.put(ApproverConfig.SIGNING_KEY_ID, KEY_ID);
            c.put("connectors.smtp.from", "actiongate@demo.local");
            try (ApproverService approver = ApproverService.start(c)) {
                assertThat(approver.awaitReady(WAIT)).isTrue();
                String base = approver.publicUrl().toString();
                ApprovalPageClient browser = new ApprovalPageClient(approver.publicUrl());
                idp.nextSignIn("alice@demo", "demo", "alice@example.com");
                assertThat(browser.signIn(approver.publicUrl(), "/stepup").body()).contains("Signed in");
                browser.enrolTotp(approver.publicUrl());

                String review = await().atMost(WAIT).pollInterval(Duration.ofMillis(300))
                        .until(() -> browser.get(base + "/review/" + ActionKey.format(TASK, CALL)).body(),
                                b -> b.contains("id=\"decide\""));
                assertThat(review).doesNotContain("id=\"conflict-refused\"");

                // another body under the same ids, straight onto proposals: the gate refuses it
                ActionProposal altered = Fixtures.email(TASK, CALL, "demo",
                        Fixtures.emailInput("partner@example.com", Fixtures.SUBJECT, "The whole customer list."),
                        Fixtures.SUMMARY);
                propose(producer, altered);
                IdentityConflict conflict = awaitRecord("conflicts", IdentityConflict.class, x -> true);
                assertThat(conflict.getExistingDigest()).isEqualTo(waiting.getActionDigest());

                String after = await().atMost(WAIT).pollInterval(Duration.ofMillis(300))
                        .until(() -> browser.get(base + "/review/" + ActionKey.format(TASK, CALL)).body(),
                                b -> b.contains("id=\"conflict-refused\""));
                assertThat(ApprovalPageClient.text(after, "conflict-refused"))
                        .contains("A conflicting proposal under the same ids was refused by the gate",
                                "it can still be decided");
                assertThat(ApprovalPageClient.text(after, "recipient")).isEqualTo(Fixtures.TO);
                assertThat(ApprovalPageClient.text(after, "body")).isEqualTo(Fixtures.BODY);
                assertThat(ApprovalPageClient.text(after, "action-digest")).isEqualTo(waiting.getActionDigest());
                assertThat(after).doesNotContain("The whole customer list.").doesNotContain("partner@example.com");

                // the original is still decided from the page that shows the conflict (the code app waits for a
                // step its set-up did not use)
                Map<String, String> f = browser.decisionForm(after, "APPROVE");
                HttpResponse<String> approved = browser.post(base + "/review/" + ActionKey.format(TASK, CALL),
                        approver.config().origin(), f);
                assertThat(approved.statusCode()).isEqualTo(200);
                assertThat(approved.body()).contains("You approved this exact action");
                Decision d = awaitRecord("decisions", Decision.class, x -> true);
                assertThat(d.getActionDigest()).isEqualTo(waiting.getActionDigest());
                // the gate took it: the original leaves WAITING_APPROVAL towards its single dispatch
                awaitRecord("receipts", Receipt.class, r -> r.getStatus() != ReceiptStatus.WAITING_APPROVAL
                        && waiting.getActionDigest().equals(r.getActionDigest()));
            }
        }
    }

    private void propose(KafkaProducer<String, byte[]> producer, ActionProposal p) throws Exception {
        producer.send(new ProducerRecord<>(prefix + "proposals", ActionKey.format(TASK, CALL),
                AvroSerdes.serde(ActionProposal.class).serialize(null, p))).get();
    }

    private <T extends org.apache.avro.specific.SpecificRecordBase> T awaitRecord(String topic, Class<T> type,
                                                                                 Predicate<T> match) {
        return await().atMost(WAIT).pollInterval(Duration.ofMillis(300))
                .until(() -> readAll(prefix + topic, type).stream().filter(match).findFirst().orElse(null),
                        r -> r != null);
    }

    private <T extends org.apache.avro.specific.SpecificRecordBase> List<T> readAll(String topic, Class<T> type) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        String key = ActionKey.format(TASK, CALL);
        List<T> out = new ArrayList<>();
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
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key()) && r.value() != null) {
                        out.add(AvroSerdes.serde(type).deserialize(topic, r.value()));
                    }
                }
            }
        }
        return out;
    }
}
