package io.actiongate.cli.commands;

import static io.actiongate.executor.ItSupport.produce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/** {@code propose} against a running gate: it waits for the first receipt and says what happened. */
class ProposeCommandIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final String REVIEW = "https://approve.example.com";

    @TempDir
    static Path dir;

    private static String prefix;
    private static ActiongateNode node;
    private static Path proposal;

    @BeforeAll
    static void startGate(TestInfo test) throws Exception {
        AvroSetup.install();
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 30_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
        publishPolicy();
        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", KAFKA.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put("application.id", TestNames.applicationId(test));
        c.put("state.dir", Files.createDirectories(dir.resolve("state")).toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.punctuate.interval", "200ms");
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("connectors.webhook.base-url", "http://127.0.0.1:9");
        c.put("connectors.webhook.operations", "send_email");
        node = ActiongateNode.start(c, Role.parse("gate"));
        await().atMost(Duration.ofSeconds(60)).until(node::ready);
        proposal = Files.writeString(dir.resolve("proposal.json"), ProposalJsonTest.minimal().toString());
    }

    @AfterAll
    static void stopGate() {
        if (node != null) {
            node.close();
        }
    }

    private static void publishPolicy() {
        Map<String, PolicyRecord> policy = new HashMap<>();
        policy.put("epoch:acme", record("epoch", AuthorizationEpoch.newBuilder().setOrgId("acme").setEpoch(7).build()));
        policy.put("task:T-1", record("task", TaskState.newBuilder().setTaskId("T-1").setOrgId("acme").setVersion(3)
                .setStatus(LifecycleStatus.ACTIVE).build()));
        policy.put("grant:acme:chat-default", record("grant", Grant.newBuilder().setOrgId("acme")
                .setProfileId("chat-default").setTools(List.of("send_email")).setMode(GrantMode.FULL_ACCESS)
                .setChatEnabled(true).build()));
        policy.put("integration:acme:webhook", record("integration", Integration.newBuilder().setOrgId("acme")
                .setProvider("webhook").setEnabled(true).setScopes(List.of()).build()));
        policy.put("tool:webhook:send_email", record("tool", ToolDescriptor.newBuilder().setProvider("webhook")
                .setToolName("send_email").setOperation("send_email").setSchemaHash("sha256:abc")
                .setReadOnlyHint(false).setDestructiveHint(null).setIdempotentHint(null).setOpenWorldHint(true)
                .setApproval(ApprovalMode.HUMAN).setMaxInputBytes(4096).setEnabled(true).build()));
        produce(KAFKA.bootstrapServers(), Topics.POLICY.name(prefix), Topics.POLICY, policy);
    }

    private static PolicyRecord record(String kind, Object body) {
        return PolicyRecord.newBuilder().setKind(kind).setBody(body).build();
    }

    private static Cli.Result propose(String topicPrefix, String... args) {
        List<String> all = new ArrayList<>(List.of("propose", "--file", proposal.toString()));
        all.addAll(List.of(args));
        all.addAll(List.of("--bootstrap-servers", KAFKA.bootstrapServers(), "--prefix", topicPrefix));
        return Cli.run(all.toArray(String[]::new));
    }

    @Test
    void shouldWaitForTheFirstReceiptAndPrintItsStateReasonCodeAndReviewUrl() {
        Cli.Result result = propose(prefix, "--tool-call-id", "call-wait", "--review-url", REVIEW + "/");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("action_key:    T-1/call-wait")
                .contains("state:         WAITING_APPROVAL")
                .contains("reason_code:   -")
                .contains("review_url:    " + REVIEW + "/review/T-1/call-wait");
    }

    @Test
    void shouldExitNonZeroAndSayWhyForARejectedProposal() {
        Cli.Result result = propose(prefix, "--tool-call-id", "call-rejected", "--tool-schema-hash", "sha256:old");

        assertThat(result.exitCode()).isEqualTo(ProposeCommand.EXIT_REJECTED);
        assertThat(result.out()).contains("state:         REJECTED")
                .contains("reason_code:   TOOL_SCHEMA_CHANGED")
                .doesNotContain("review_url");
    }

    @Test
    void shouldAnswerARedeliveryAndExitNonZeroForAConflict() {
        Cli.Result first = propose(prefix, "--tool-call-id", "call-twice");
        Cli.Result again = propose(prefix, "--tool-call-id", "call-twice");
        Cli.Result other = propose(prefix, "--tool-call-id", "call-twice", "--input", "{\"to\":\"b@example.org\"}");

        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(again.exitCode()).as("a redelivery re-publishes the receipt: " + again.err()).isZero();
        assertThat(again.out()).contains("state:         WAITING_APPROVAL")
                .contains("review_url:    - (set --review-url or ACTIONGATE_REVIEW_URL");
        assertThat(other.exitCode()).as(other.err()).isEqualTo(ProposeCommand.EXIT_CONFLICT);
        assertThat(other.out()).contains("state:         CONFLICT")
                .contains("T-1/call-twice already holds another action (webhook:send_email:send_email, sha256:");
    }

    @Test
    void shouldReturnWithoutAReceiptWithNoWait() {
        Cli.Result result = propose(prefix, "--tool-call-id", "call-nowait", "--no-wait");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("action_key:    T-1/call-nowait").doesNotContain("state:");
    }

    @Test
    void shouldSayWhenNoReceiptCameWithinTheWait(TestInfo test) {
        String noGate = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 30_000).create(TopicsCreator.Plan.of(noGate, 2, (short) 1));

        long started = System.nanoTime();
        Cli.Result result = propose(noGate, "--tool-call-id", "call-nobody", "--wait", "1s");

        assertThat(result.exitCode()).isEqualTo(ProposeCommand.EXIT_NO_RECEIPT);
        assertThat(result.err()).startsWith("error: no receipt for T-1/call-nobody within 1s (is the gate running?")
                .contains("TASK_NOT_OWNED");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }
}
