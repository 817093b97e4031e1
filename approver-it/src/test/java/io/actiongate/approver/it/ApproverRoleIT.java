package io.actiongate.approver.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.approver.ApproverService;
import io.actiongate.approver.TestIdp;
import io.actiongate.testing.ApprovalPageClient;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * {@code actiongate run --roles=approver}: the node starts the approval service from the flat configuration.
 * System tier: a whole node started from its flat configuration, end to end.
 */
@Tag("system")
class ApproverRoleIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @TempDir
    Path work;

    @Test
    void shouldRunTheApprovalServiceAsARoleOfTheNode(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 60_000).create(TopicsCreator.Plan.of(prefix, 3, (short) 1));
        KeyFiles.GeneratedKey key = KeyFiles.generate(Files.createDirectories(work.resolve("keys")), "approver-1");
        try (TestIdp idp = new TestIdp(false)) {
            Map<String, String> c = new HashMap<>();
            c.put("bootstrap.servers", KAFKA.bootstrapServers());
            c.put("topic.prefix", prefix);
            c.put("http.port", "0");
            c.put("http.bind.address", "127.0.0.1");
            c.put("approver.public.url", "http://localhost:0");
            c.put("approver.http.port", "0");
            c.put("approver.oidc.issuer", idp.issuer());
            c.put("approver.oidc.client.id", TestIdp.CLIENT_ID);
            c.put("approver.signing.key.file", key.privateKeyFile().toString());
            c.put("approver.signing.key.id", "approver-1");
            c.put("connectors.smtp.from", "assistant@example.com");

            try (ActiongateNode node = ActiongateNode.start(c, Role.parse("approver"))) {
                await().atMost(Duration.ofSeconds(60)).until(node::ready);
                ApproverService approver = node.approver().orElseThrow();
                assertThat(node.gate()).isEmpty();

                ApprovalPageClient browser = new ApprovalPageClient();
                idp.nextSignIn("alice-sub", "demo", "alice@example.com");
                assertThat(browser.follow(approver.publicUrl() + "/login?return=/queue").statusCode()).isEqualTo(200);
                HttpResponse<String> queue = browser.get(approver.publicUrl() + "/queue");
                assertThat(queue.statusCode()).isEqualTo(200);
                assertThat(queue.body()).contains("Queue of organisation demo", "Nothing is waiting.");
                assertThat(browser.get(approver.publicUrl() + "/health/ready").statusCode()).isEqualTo(200);
            }
        }
    }
}
