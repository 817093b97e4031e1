package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Attachment;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.digest.Digests;
import io.actiongate.storage.EmbeddedS3Server;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.S3AttachmentStore;
import io.actiongate.storage.StoredObject;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/** {@code storage init} and {@code propose --attach} against a real broker and S3-compatible server. */
class StorageCommandsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @TempDir
    static Path shared;

    private static EmbeddedS3Server s3;
    private static Path storageConfig;
    private static ObjectStoreConfig config;

    @TempDir
    Path dir;

    private String prefix;

    @BeforeAll
    static void startS3() throws Exception {
        s3 = EmbeddedS3Server.start(Files.createDirectories(shared.resolve("s3")));
        Map<String, String> settings = s3.storageConfig("cli-bucket", shared.resolve("secrets"));
        StringBuilder properties = new StringBuilder();
        settings.forEach((k, v) -> properties.append(k).append('=').append(v).append('\n'));
        storageConfig = Files.writeString(shared.resolve("storage.properties"), properties.toString());
        config = new ObjectStoreConfig(settings);
    }

    @AfterAll
    static void stopS3() {
        s3.close();
    }

    @BeforeEach
    void topics(TestInfo test) {
        prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 30_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
        Cli.Result init = Cli.run("storage", "init", "--storage-config", storageConfig.toString(),
                "--allow-missing-lifecycle");
        assertThat(init.exitCode()).as(init.err()).isZero();
        assertThat(init.out()).contains("bucket:    cli-bucket").contains("lifecycle: ");
    }

    @Test
    void storageInitShouldBeRepeatableAndSayWhatItDid() {
        Cli.Result again = Cli.run("storage", "init", "--storage-config", storageConfig.toString(),
                "--allow-missing-lifecycle");
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("bucket:    cli-bucket (exists)");
        // S3Proxy's filesystem backend answers 501 to lifecycle rules; against S3 or MinIO the rule is installed
        assertThat(again.out()).contains("lifecycle: not installed: the object store does not support bucket "
                + "lifecycle rules (HTTP 501");
        assertThat(again.err()).isEmpty();
    }

    @Test
    void storageInitShouldFailWhenTheLifecycleRuleWasNotInstalled() {
        Cli.Result init = Cli.run("storage", "init", "--storage-config", storageConfig.toString());

        // an automated install notices that abandoned objects have no backstop
        assertThat(init.exitCode()).isEqualTo(1);
        assertThat(init.out()).contains("bucket:    cli-bucket (exists)").contains("lifecycle: not installed");
        assertThat(init.err()).startsWith("error: the lifecycle rule was not installed")
                .contains("--allow-missing-lifecycle");
    }

    @Test
    void proposeWithAttachShouldStageEachFileUnderTheActionAndListItInTheProposal() throws Exception {
        byte[] pdf = "%PDF-1.7 report".getBytes(StandardCharsets.UTF_8);
        byte[] notes = "notes\n".getBytes(StandardCharsets.UTF_8);
        Path report = Files.write(dir.resolve("secret-project-report.pdf"), pdf);
        Path text = Files.write(dir.resolve("notes.txt"), notes);
        Path file = Files.writeString(dir.resolve("proposal.json"), ProposalJsonTest.minimal().toString());

        Cli.Result result = Cli.run("propose", "--file", file.toString(), "--tool-call-id", "call-att",
                "--no-wait", "--attach", report.toString(), "--attach", text.toString(),
                "--storage-config", storageConfig.toString(),
                "--bootstrap-servers", KAFKA.bootstrapServers(), "--prefix", prefix);

        assertThat(result.exitCode()).as(result.err()).isZero();
        ActionProposal proposal = proposals().get(0);
        List<Attachment> attachments = proposal.getAttachments();
        assertThat(attachments).hasSize(2);
        assertThat(attachments.get(0).getSha256()).isEqualTo(Digests.sha256Hex(pdf));
        assertThat(attachments.get(0).getSizeBytes()).isEqualTo(pdf.length);
        assertThat(attachments.get(0).getContentType()).isEqualTo("application/pdf");
        assertThat(attachments.get(1).getContentType()).isEqualTo("text/plain");
        assertThat(attachments).allSatisfy(a -> {
            assertThat(a.getOwnerInvocationId()).isEqualTo("T-1/call-att");
            assertThat(a.getObjectKey()).startsWith("attachments/T-1/call-att/").doesNotContain("report")
                    .doesNotContain(dir.toString());
        });
        try (S3AttachmentStore store = S3AttachmentStore.create(config)) {
            StoredObject stored = store.describe(attachments.get(0).getObjectKey()).orElseThrow();
            assertThat(stored.ownerInvocationId()).isEqualTo("T-1/call-att");
            assertThat(stored.sha256()).isEqualTo(Digests.sha256Hex(pdf));
        }
        assertThat(proposal.toString()).doesNotContain(dir.toString()).doesNotContain("secret-project");
        assertThat(result.out()).contains("attachment:    attachments/T-1/call-att/").doesNotContain(dir.toString());
    }

    @Test
    void proposeShouldRefuseADisallowedContentTypeAndStageNothing() throws Exception {
        Path exe = Files.write(dir.resolve("tool.exe"), new byte[] {0x4d, 0x5a});
        Path file = Files.writeString(dir.resolve("proposal.json"), ProposalJsonTest.minimal().toString());

        Cli.Result result = Cli.run("propose", "--file", file.toString(), "--tool-call-id", "call-exe",
                "--attach", exe.toString(), "--storage-config", storageConfig.toString(),
                "--bootstrap-servers", KAFKA.bootstrapServers(), "--prefix", prefix);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: attachments refused: ").contains("application/octet-stream");
        try (S3AttachmentStore store = S3AttachmentStore.create(config)) {
            assertThat(store.listKeys()).noneMatch(k -> k.contains("call-exe"));
        }
        assertThat(proposals()).isEmpty();
    }

    private List<ActionProposal> proposals() {
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ActionProposal> values = new ArrayList<>();
        try (KafkaConsumer<String, ActionProposal> consumer = new KafkaConsumer<>(props,
                Topics.PROPOSALS.keySerde().deserializer(), Topics.PROPOSALS.valueSerde().deserializer())) {
            String topic = Topics.PROPOSALS.name(prefix);
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, ActionProposal> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }
}
