package io.actiongate.approver.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.ApproverService;
import io.actiongate.approver.Fixtures;
import io.actiongate.approver.TestIdp;
import io.actiongate.avro.ActionProposal;
import io.actiongate.broker.EmbeddedKafkaBroker;
import io.actiongate.dev.DemoPolicy;
import io.actiongate.dev.DevStack;
import io.actiongate.dev.Sandboxes;
import io.actiongate.keys.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.TopicsCreator;

/**
 * Try the approval page by hand until {@code actiongate dev} starts an identity provider of its own: an embedded
 * broker, the gate with executor and reconciler sending through the sandbox SMTP server, the in-process OIDC
 * provider with its login form, the approval service, and one demo email waiting for approval. Prints the review URL
 * and the demo login; Ctrl-C stops everything. Run it as the README says ("Approval service", "Try it by hand").
 * It is test code: the OIDC provider it uses must never reach the production jar.
 */
public final class ApproverDevMain {

    private ApproverDevMain() {
    }

    public static void main(String[] args) throws Exception {
        AvroSetup.install();
        Path work = Files.createTempDirectory("actiongate-approver-dev-");
        String prefix = "actiongate.";
        CountDownLatch stop = new CountDownLatch(1);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().start();
             org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                     Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(prefix, 3, (short) 1));
            DevStack.publish(broker.bootstrapServers(), prefix, DemoPolicy.entries());

            Path trusted = Files.createDirectories(work.resolve("trusted"));
            KeyFiles.GeneratedKey key = KeyFiles.generate(Files.createDirectories(work.resolve("approver")),
                    DevStack.APPROVER_KEY_ID);
            Files.move(key.publicKeyFile(), trusted.resolve(DevStack.APPROVER_KEY_ID + KeyFiles.PUBLIC_SUFFIX));
            Path smtpPassword = work.resolve("smtp-password");
            Files.writeString(smtpPassword, "smtp-dev-secret");

            Map<String, String> c = new HashMap<>();
            c.put("bootstrap.servers", broker.bootstrapServers());
            c.put("topic.prefix", prefix);
            c.put("state.dir", Files.createDirectories(work.resolve("state")).toString());
            c.put("http.port", "0");
            c.put("http.bind.address", "127.0.0.1");
            c.put("gate.trusted.keys.dir", trusted.toString());
            c.put("gate.punctuate.interval", "500ms");
            c.put("gate.streams.commit.interval.ms", "100");
            c.put("connectors.smtp.from", "actiongate@demo.local");
            c.put("connectors.smtp.username", "actiongate");
            c.put("connectors.smtp.password", "file:" + smtpPassword);
            c.put("connectors.smtp.allowed-domains", Sandboxes.MAIL_DOMAIN);
            c.put("connectors.smtp.host", "127.0.0.1");

            try (Sandboxes sandboxes = Sandboxes.start("smtp-dev-secret", "imap-dev-secret");
                 TestIdp idp = new TestIdp(true)) {
                c.put("connectors.smtp.port", Integer.toString(sandboxes.smtpPort()));
                c.put(ApproverConfig.PUBLIC_URL, "http://localhost:" + System.getProperty("approver.port", "0"));
                c.put(ApproverConfig.PORT, System.getProperty("approver.port", "0"));
                c.put(ApproverConfig.OIDC_ISSUER, idp.issuer());
                c.put(ApproverConfig.OIDC_CLIENT_ID, TestIdp.CLIENT_ID);
                c.put(ApproverConfig.SIGNING_KEY_FILE, key.privateKeyFile().toString());
                c.put(ApproverConfig.SIGNING_KEY_ID, DevStack.APPROVER_KEY_ID);
                try (ActiongateNode node = ActiongateNode.start(c, Role.parse("all,approver"))) {
                    ApproverService approver = node.approver().orElseThrow();
                    ActionProposal email = Fixtures.email("T-1", "demo-email-1");
                    Properties p = new Properties();
                    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
                    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
                            new ByteArraySerializer())) {
                        producer.send(new ProducerRecord<>(prefix + "proposals", "T-1/demo-email-1",
                                AvroSerdes.serde(ActionProposal.class).serialize(null, email))).get();
                    }
                    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
                    System.out.println();
                    System.out.println("review the demo email:  " + approver.publicUrl() + "/review/T-1/demo-email-1");
                    System.out.println("queue:                  " + approver.publicUrl() + "/queue");
                    System.out.println("demo login at the IdP:  username alice@demo, claims "
                            + "{\"org\":\"demo\",\"email\":\"alice@example.com\"}");
                    System.out.println("then register a passkey (or a one-time code app) under Step-up factors.");
                    System.out.println("Ctrl-C stops everything.");
                    int seen = -1;
                    while (stop.getCount() > 0) {
                        int mails = sandboxes.mailsReceived();
                        if (mails != seen) {
                            System.out.println("emails in the sandbox mailbox: " + mails);
                            seen = mails;
                        }
                        stop.await(1, java.util.concurrent.TimeUnit.SECONDS);
                    }
                }
            }
        }
    }
}
