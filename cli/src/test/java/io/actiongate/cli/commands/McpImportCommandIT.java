package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

/** {@code actiongate mcp import}: only the named tools become descriptors, with the upstream's schema hash. */
class McpImportCommandIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    @Test
    void shouldWriteDescriptorsOnlyForTheNamedTools(TestInfo test, @TempDir Path dir) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        new TopicsCreator(KAFKA.admin(), 30_000).create(TopicsCreator.Plan.of(prefix, 2, (short) 1));
        try (SandboxMcpServer upstream = SandboxMcpServer.start()) {
            Path config = Files.writeString(dir.resolve("gateway.properties"), String.join("\n",
                    "bootstrap.servers=" + KAFKA.bootstrapServers(), "topic.prefix=" + prefix,
                    "mcp.gateway.tokens.file=" + dir.resolve("hosts"), "mcp.gateway.review.url=http://r/{action_key}",
                    "mcp.gateway.upstreams=notes", "mcp.gateway.upstream.notes.url=" + upstream.url(),
                    "mcp.gateway.upstream.notes.provider=webhook",
                    "mcp.gateway.upstream.notes.operations=notes_lookup:get_notes", ""));

            Cli.Result ok = Cli.run("mcp", "import", "--config", config.toString(), "--upstream", "notes",
                    "--trust", "notes_lookup");
            assertThat(ok.exitCode()).as(ok.err()).isZero();
            assertThat(ok.out()).contains("tool:webhook:notes_lookup approval=NONE read_only_hint=true")
                    .doesNotContain("notes_post");

            Cli.Result unknown = Cli.run("mcp", "import", "--config", config.toString(), "--upstream", "notes",
                    "--trust", "delete_everything");
            assertThat(unknown.exitCode()).isNotZero();
            assertThat(unknown.err()).contains("error: ", "delete_everything");
        }
        List<ToolDescriptor> written = descriptors(prefix);
        assertThat(written).singleElement().satisfies(d -> {
            assertThat(d.getToolName()).isEqualTo("notes_lookup");
            assertThat(d.getOperation()).isEqualTo("get_notes");
            assertThat(d.getApproval()).isEqualTo(ApprovalMode.NONE);
            assertThat(d.getSchemaHash()).startsWith("sha256:").hasSize(71);
        });
    }

    private static List<ToolDescriptor> descriptors(String prefix) {
        Map<String, Object> props = KAFKA.clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ToolDescriptor> out = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(Topics.POLICY.name(prefix)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    PolicyRecord p = Topics.POLICY.valueSerde().deserializer().deserialize(r.topic(), r.value());
                    out.add((ToolDescriptor) p.getBody());
                }
            }
            // anything else already there would have come in the same polls
            consumer.poll(Duration.ofSeconds(1)).forEach(r -> out.add((ToolDescriptor) Topics.POLICY.valueSerde()
                    .deserializer().deserialize(r.topic(), r.value()).getBody()));
        }
        return out;
    }
}
