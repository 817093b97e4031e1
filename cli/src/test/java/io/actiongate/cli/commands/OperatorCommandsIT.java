package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/** The operator commands against a real broker: what they write decodes, and receipts prints what is there. */
class OperatorCommandsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    private String prefix;

    @BeforeEach
    void topics(TestInfo test) {
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 30_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
    }

    private String[] kafkaArgs(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap-servers", KAFKA.bootstrapServers(), "--prefix", prefix));
        return all.toArray(String[]::new);
    }

    @Test
    void proposeShouldPublishADecodableProposalKeyedByActionKeyWithComputedDigests() throws Exception {
        Path file = dir.resolve("proposal.json");
        Files.writeString(file, ProposalJsonTest.minimal().toString());

        Cli.Result result = Cli.run(kafkaArgs("propose", "--file", file.toString(), "--tool-call-id", "call-7",
                "--no-wait"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        List<ConsumerRecord<String, ActionProposal>> records = readAll(Topics.PROPOSALS, 1);
        ConsumerRecord<String, ActionProposal> record = records.get(0);
        ActionProposal proposal = record.value();
        assertThat(record.key()).isEqualTo("T-1/call-7");
        assertThat(proposal.getToolCallId()).isEqualTo("call-7");
        assertThat(proposal.getInputDigest()).isEqualTo(Digests.inputDigest(proposal.getInputJson()));
        assertThat(proposal.getProposedAt()).isBetween(Instant.now().minusSeconds(120), Instant.now());
        assertThat(result.out())
                .contains("action_key:    T-1/call-7")
                .contains("input_digest:  " + proposal.getInputDigest())
                .contains("action_digest: " + Digests.actionDigest(FrozenAction.of(proposal)));
    }

    @Test
    void approverResetFactorsShouldEmptyAPersonsFactorsEverywhereAndLeaveAnAuditRecord() throws Exception {
        String topic = io.actiongate.approver.state.KafkaState.defaultTopic(prefix);
        try (var state = new io.actiongate.approver.state.KafkaState(KAFKA.bootstrapServers(), Map.of(), topic)) {
            assertThat(state.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
            var store = new io.actiongate.approver.stepup.StepUpStore(state,
                    io.actiongate.approver.web.Sealer.random());
            assertThat(store.setTotp("acme", "bob", new byte[20], 1, true)).isTrue();
        }

        Cli.Result reset = Cli.run(kafkaArgs("approver", "reset-factors", "--org", "acme", "--subject", "bob",
                "--reason", "lost phone"));
        Cli.Result missing = Cli.run(kafkaArgs("approver", "reset-factors", "--org", "acme"));

        assertThat(reset.exitCode()).as(reset.err()).isZero();
        assertThat(reset.out()).contains("reset the step-up factors of bob in acme", "audit record audit/reset-factors/");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.err()).contains("--subject");
        try (var state = new io.actiongate.approver.state.KafkaState(KAFKA.bootstrapServers(), Map.of(), topic)) {
            assertThat(state.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
            assertThat(new io.actiongate.approver.stepup.StepUpStore(state,
                    io.actiongate.approver.web.Sealer.random()).hasAny("acme", "bob")).isFalse();
            List<String> audits = state.keys("audit/reset-factors/");
            assertThat(audits).singleElement().satisfies(k -> assertThat(new String(state.get(k).orElseThrow()
                    .value(), java.nio.charset.StandardCharsets.UTF_8)).contains("\"subject\":\"bob\"",
                    "\"reason\":\"lost phone\"", "\"had_factors\":true"));
        }
    }

    @Test
    void approverResetFactorsShouldResolveThePrefixFromConfigAsDocumented() throws Exception {
        // as docs/approving.md writes it (no --prefix), with topic.prefix in --config
        String topic = io.actiongate.approver.state.KafkaState.defaultTopic(prefix);
        try (var state = new io.actiongate.approver.state.KafkaState(KAFKA.bootstrapServers(), Map.of(), topic)) {
            assertThat(state.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
            assertThat(new io.actiongate.approver.stepup.StepUpStore(state, io.actiongate.approver.web.Sealer.random())
                    .setTotp("acme", "bob", new byte[20], 1, true)).isTrue();
        }
        Path config = Files.writeString(dir.resolve("actiongate.properties"), "bootstrap.servers="
                + KAFKA.bootstrapServers() + "\ntopic.prefix=" + prefix + "\n");

        Cli.Result reset = Cli.run("approver", "reset-factors", "--org", "acme", "--subject", "bob", "--config",
                config.toString());

        assertThat(reset.exitCode()).as(reset.err()).isZero();
        assertThat(reset.out()).contains("reset the step-up factors of bob in acme on " + topic);
        try (var state = io.actiongate.approver.state.KafkaState.existing(KAFKA.bootstrapServers(), Map.of(), topic)) {
            assertThat(state.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
            assertThat(new io.actiongate.approver.stepup.StepUpStore(state, io.actiongate.approver.web.Sealer.random())
                    .hasAny("acme", "bob")).isFalse();
        }
        assertThat(KAFKA.admin().listTopics().names().get(10, java.util.concurrent.TimeUnit.SECONDS))
                .noneMatch(name -> name.startsWith("null"));
    }

    @Test
    void approverResetFactorsShouldFailAndCreateNothingWhenTheStateTopicIsMissing() throws Exception {
        String missing = prefix + "nowhere.";

        Cli.Result reset = Cli.run("approver", "reset-factors", "--org", "acme", "--subject", "bob",
                "--bootstrap-servers", KAFKA.bootstrapServers(), "--prefix", missing);

        assertThat(reset.exitCode()).isEqualTo(1);
        assertThat(reset.out()).doesNotContain("reset");
        assertThat(reset.err()).contains(missing + "approver-state", "does not exist");
        assertThat(KAFKA.admin().listTopics().names().get(10, java.util.concurrent.TimeUnit.SECONDS))
                .noneMatch(name -> name.startsWith(missing) || name.startsWith("null"));
    }

    @Test
    void approverResetFactorsShouldUseTheKafkaConfigsClientSettings() throws Exception {
        // a client setting that cannot work against this plaintext broker: honoured, the command fails
        Path kafkaConfig = Files.writeString(dir.resolve("client.properties"),
                "security.protocol=SSL\ndefault.api.timeout.ms=3000\nrequest.timeout.ms=2000\n");

        Cli.Result reset = Cli.run(kafkaArgs("approver", "reset-factors", "--org", "acme", "--subject", "bob",
                "--kafka-config", kafkaConfig.toString()));

        assertThat(reset.exitCode()).as(reset.out()).isEqualTo(1);
        assertThat(reset.out()).doesNotContain("reset");
    }

    @Test
    void policyPutAndDeleteShouldPublishDecodableRecordsAndTombstones() throws Exception {
        Path file = dir.resolve("policy.json");
        Files.writeString(file, """
                [{"key": "tool:webhook:send_email", "kind": "tool", "operation": "send_email",
                  "schema_hash": "sha256:s", "approval": "HUMAN", "max_input_bytes": 4096, "enabled": true},
                 {"key": "epoch:acme", "kind": "epoch", "epoch": 3}]""");

        Cli.Result put = Cli.run(kafkaArgs("policy", "put", "--file", file.toString()));
        Cli.Result delete = Cli.run(kafkaArgs("policy", "delete", "epoch:acme"));

        assertThat(put.exitCode()).as(put.err()).isZero();
        assertThat(put.out()).contains("put tool:webhook:send_email").contains("put epoch:acme");
        assertThat(delete.exitCode()).as(delete.err()).isZero();
        List<ConsumerRecord<String, PolicyRecord>> records = readAll(Topics.POLICY, 3);
        assertThat(records).extracting(ConsumerRecord::key)
                .containsExactlyInAnyOrder("tool:webhook:send_email", "epoch:acme", "epoch:acme");
        PolicyRecord tool = value(records, "tool:webhook:send_email");
        assertThat(((ToolDescriptor) tool.getBody()).getMaxInputBytes()).isEqualTo(4096);
        List<PolicyRecord> epochs = records.stream().filter(r -> r.key().equals("epoch:acme"))
                .map(ConsumerRecord::value).toList();
        assertThat(((AuthorizationEpoch) epochs.get(0).getBody()).getEpoch()).isEqualTo(3L);
        assertThat(epochs.get(1)).as("tombstone").isNull();
    }

    @Test
    void policyPutShouldWriteNothingWhenOneRecordIsInvalid() throws Exception {
        Path file = dir.resolve("policy.json");
        Files.writeString(file, """
                [{"key": "epoch:acme", "kind": "epoch", "epoch": 3},
                 {"key": "epoch:other", "kind": "epoch", "epoch": "three"}]""");

        Cli.Result put = Cli.run(kafkaArgs("policy", "put", "--file", file.toString()));

        assertThat(put.exitCode()).isEqualTo(1);
        assertThat(put.err()).isEqualTo("error: policy[1]: field 'epoch' must be an integer\n");
        assertThat(readAll(Topics.POLICY, 0)).isEmpty();
    }

    @Test
    void decideShouldPublishADecisionThatVerifiesWithTheApproversPublicKey() throws Exception {
        KeyFiles.generate(dir, "alice-1");
        String digest = "sha256:" + "d".repeat(64);

        Cli.Result result = Cli.run(kafkaArgs("decide", "T-1", "c-1", "--type", "APPROVE",
                "--key", dir.resolve("alice-1.key").toString(), "--approver", "alice@acme", "--org", "acme",
                "--ttl", "10m", "--digest", digest));

        assertThat(result.exitCode()).as(result.err()).isZero();
        ConsumerRecord<String, Decision> record = readAll(Topics.DECISIONS, 1).get(0);
        Decision decision = record.value();
        assertThat(record.key()).isEqualTo("T-1/c-1");
        assertThat(result.out().trim()).isEqualTo(decision.getDecisionId());
        assertThat(Partitioning.home(decision.getDecisionId(), 2)).as("the id sits on its action's partition")
                .isEqualTo(record.partition()).isEqualTo(Partitioning.home("T-1/c-1", 2));
        assertThat(decision.getType()).isEqualTo(DecisionType.APPROVE);
        assertThat(decision.getActionDigest()).isEqualTo(digest);
        assertThat(decision.getKeyId()).isEqualTo("alice-1");
        assertThat(Duration.between(decision.getIssuedAt(), decision.getExpiresAt())).isEqualTo(Duration.ofMinutes(10));
        Map<String, java.security.PublicKey> trusted = KeyFiles.readPublicKeys(dir);
        assertThat(DecisionSigning.verify(decision, trusted.get(decision.getKeyId()))).isTrue();
    }

    @Test
    void decideShouldSignTheDigestTheGateHoldsForTheAction() throws Exception {
        KeyFiles.generate(dir, "bob");
        String digest = "sha256:" + "e".repeat(64);
        com.fasterxml.jackson.databind.node.ObjectNode state = MAPPER.createObjectNode()
                .put("status", "WAITING_APPROVAL").put("action_digest", digest);

        Cli.Result result;
        try (io.actiongate.http.GateHttpServer gate = DecideCommandTest.gateKnowing(state)) {
            result = Cli.run(kafkaArgs("decide", "T-1", "c-1", "--type", "reject", "--key",
                    dir.resolve("bob.key").toString(), "--approver", "bob", "--org", "acme",
                    "--gate-url", "http://127.0.0.1:" + gate.port()));
        }

        assertThat(result.exitCode()).as(result.err()).isZero();
        Decision decision = readAll(Topics.DECISIONS, 1).get(0).value();
        assertThat(decision.getActionDigest()).isEqualTo(digest);
        assertThat(decision.getType()).isEqualTo(DecisionType.REJECT);
        assertThat(decision.getKeyId()).isEqualTo("bob");
        assertThat(DecisionSigning.verify(decision, KeyFiles.readPublicKey(dir.resolve("bob.pub")))).isTrue();
    }

    @Test
    void receiptsShouldPrintWhatExistsAsLinesOrJsonAndExit() throws Exception {
        produceReceipt(receipt("T-1", "c-1", ReceiptStatus.SUCCEEDED, null, "prov-123"));
        produceReceipt(receipt("T-1", "c-2", ReceiptStatus.REJECTED, "DIGEST_MISMATCH", null));

        Cli.Result lines = Cli.run(kafkaArgs("receipts"));
        Cli.Result json = Cli.run(kafkaArgs("receipts", "--json"));

        assertThat(lines.exitCode()).as(lines.err()).isZero();
        assertThat(lines.out().lines()).hasSize(2);
        assertThat(lines.out()).containsPattern("T-1/c-1\\s+SUCCEEDED\\s+-\\s+attempts=1\\s+provider_receipt=prov-123")
                .containsPattern("T-1/c-2\\s+REJECTED\\s+DIGEST_MISMATCH\\s+attempts=0\\s+provider_receipt=-")
                .contains("2026-11-30T02:00:00Z");
        assertThat(json.exitCode()).isZero();
        List<JsonNode> parsed = new ArrayList<>();
        for (String line : json.out().lines().toList()) {
            parsed.add(MAPPER.readTree(line));
        }
        assertThat(parsed).extracting(n -> n.get("status").asText()).containsExactlyInAnyOrder("SUCCEEDED", "REJECTED");
        JsonNode succeeded = parsed.stream().filter(n -> n.get("tool_call_id").asText().equals("c-1")).findFirst()
                .orElseThrow();
        assertThat(succeeded.get("attempts").get(0).get("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(succeeded.get("provider_receipt_id").asText()).isEqualTo("prov-123");
    }

    @Test
    void receiptsFollowShouldPrintReceiptsThatArriveLater() throws Exception {
        produceReceipt(receipt("T-1", "old", ReceiptStatus.SUCCEEDED, null, null));
        CompletableFuture<Cli.Result> follow = CompletableFuture.supplyAsync(() ->
                Cli.run(kafkaArgs("receipts", "--follow", "--max-messages", "1")));
        Thread.sleep(3000);

        produceReceipt(receipt("T-2", "new", ReceiptStatus.WAITING_APPROVAL, null, null));

        Cli.Result result = follow.get(60, TimeUnit.SECONDS);
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("T-2/new").contains("WAITING_APPROVAL").doesNotContain("T-1/old");
    }

    @Test
    void receiptsShouldFailWithOneLineWhenTheTopicDoesNotExist() {
        Cli.Result result = Cli.run("receipts", "--bootstrap-servers", KAFKA.bootstrapServers(), "--prefix", "nope.");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: topic nope.receipts does not exist").hasLineCount(1);
    }

    private static Receipt receipt(String task, String call, ReceiptStatus status, String reason, String providerId) {
        List<AttemptSummary> attempts = status == ReceiptStatus.SUCCEEDED && providerId != null
                ? List.of(AttemptSummary.newBuilder().setAttempt(1).setStatus(OutcomeStatus.SUCCEEDED)
                        .setDispatched(true).setHttpStatus(200).build())
                : List.of();
        return Receipt.newBuilder().setTaskId(task).setToolCallId(call).setStatus(status).setReasonCode(reason)
                .setToolName("send_email").setProvider("webhook").setOperation("send_email")
                .setAttempts(attempts).setProviderReceiptId(providerId)
                .setUpdatedAt(Instant.parse("2026-11-30T02:00:00Z")).build();
    }

    private void produceReceipt(Receipt receipt) throws Exception {
        Map<String, Object> config = KAFKA.clientProperties();
        try (KafkaProducer<String, Receipt> producer = new KafkaProducer<>(config, new StringSerializer(),
                Topics.RECEIPTS.valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(Topics.RECEIPTS.name(prefix),
                    ActionKey.format(receipt.getTaskId(), receipt.getToolCallId()), receipt)).get(30, TimeUnit.SECONDS);
        }
    }

    private <V> List<ConsumerRecord<String, V>> readAll(TopicSpec<String, V> spec, int expected) {
        Map<String, Object> config = KAFKA.clientProperties();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, V>> records = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config, spec.keySerde().deserializer(),
                spec.valueSerde().deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(spec.name(prefix)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                boolean atEnd = partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
                if (atEnd && records.size() >= expected) {
                    break;
                }
            }
        }
        records.sort(java.util.Comparator.comparingLong(ConsumerRecord::offset));
        assertThat(records).hasSize(expected);
        return records;
    }

    private static <V> V value(List<ConsumerRecord<String, V>> records, String key) {
        return records.stream().filter(r -> r.key().equals(key)).findFirst().orElseThrow().value();
    }
}
