package io.actiongate.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

class PolicyTopicSchemaHashesTest {

    private static final String TOPIC = "actiongate.policy";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final AvroSerde<PolicyRecord> SERDE = AvroSerdes.serde(PolicyRecord.class);

    private static byte[] tool(String hash) {
        return SERDE.serialize(TOPIC, PolicyRecord.newBuilder().setKind("tool").setBody(ToolDescriptor.newBuilder()
                .setProvider("webhook").setToolName("send").setOperation("send").setSchemaHash(hash)
                .setReadOnlyHint(null).setDestructiveHint(null).setIdempotentHint(null).setOpenWorldHint(null)
                .setApproval(ApprovalMode.HUMAN).setMaxInputBytes(4096).setEnabled(true).build()).build());
    }

    @Test
    void shouldBeReadyOnlyAfterCatchingUpAndFollowUpdatesAndTombstones() {
        MockConsumer<String, byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0],
                new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 2L));
        PolicyTopicSchemaHashes hashes = new PolicyTopicSchemaHashes(new PolicyTopicReader(consumer, TOPIC, null));

        hashes.assign();
        assertThat(hashes.ready()).isFalse();
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, "tool:webhook:send", tool("sha256:v1")));
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, "epoch:acme", new byte[] {1}));
        hashes.pollOnce(Duration.ofMillis(1));
        assertThat(hashes.ready()).isTrue();
        assertThat(hashes.schemaHash("webhook", "send")).contains("sha256:v1");

        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 2, "tool:webhook:send", tool("sha256:v2")));
        hashes.pollOnce(Duration.ofMillis(1));
        assertThat(hashes.schemaHash("webhook", "send")).contains("sha256:v2");

        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 3, "tool:webhook:send", null));
        hashes.pollOnce(Duration.ofMillis(1));
        assertThat(hashes.schemaHash("webhook", "send")).isEmpty();
    }

    @Test
    void shouldTreatAnUndecodableDescriptorAsAbsent() {
        MockConsumer<String, byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0],
                new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        PolicyTopicSchemaHashes hashes = new PolicyTopicSchemaHashes(new PolicyTopicReader(consumer, TOPIC, null));
        hashes.assign();
        assertThat(hashes.ready()).isTrue();

        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, "tool:webhook:send", tool("sha256:v1")));
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, "tool:webhook:send", new byte[] {9, 9}));
        hashes.pollOnce(Duration.ofMillis(1));
        assertThat(hashes.schemaHash("webhook", "send")).isEmpty();
    }
}
