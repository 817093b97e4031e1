package io.actiongate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.kafka.TopicFollower;

class PolicyTopicReaderTest {

    private static final String TOPIC = "t.policy";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
    private long offset;

    private PolicyTopicReader reader(String defaultOrg, long endOffset) {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0],
                new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, endOffset));
        PolicyTopicReader reader = new PolicyTopicReader(consumer, TOPIC, defaultOrg);
        reader.assign(Duration.ofSeconds(1));
        return reader;
    }

    private void publish(String key, byte[] value) {
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset++, key, value));
    }

    @Test
    void shouldOwnATaskWithoutOrgForTheGatesDefaultOrgOnly() {
        // a task written before schema v2 (no org_id): the gate gives it to gate.task.default.org; the gateway's own
        // view gave it to nobody, so a single-tenant deployment's reads were refused TASK_NOT_OWNED
        PolicyTopicReader single = reader("acme", 0);
        publish(PolicyKey.taskKey("t-legacy"), PolicyRecords.task("t-legacy", null, 3, LifecycleStatus.ACTIVE));
        single.pollOnce(Duration.ofMillis(1));

        assertThat(single.ownsTask("acme", "t-legacy")).isTrue();
        assertThat(single.ownsTask("other", "t-legacy")).isFalse();
        assertThat(single.ownsTask(null, "t-legacy")).isFalse();
        assertThat(single.ownsTask("acme", "t-unknown")).isFalse();
        assertThat(single.snapshot("p", "t", "acme", "agent", "t-legacy", null).ownership("acme")).isEmpty();
    }

    @Test
    void shouldOwnATaskWithoutOrgForNobodyWithoutADefaultOrg() {
        PolicyTopicReader multi = reader(null, 0);
        publish(PolicyKey.taskKey("t-legacy"), PolicyRecords.task("t-legacy", null, 3, LifecycleStatus.ACTIVE));
        publish(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));
        multi.pollOnce(Duration.ofMillis(1));

        assertThat(multi.ownsTask("acme", "t-legacy")).isFalse();
        assertThat(multi.ownsTask("acme", "t-1")).isTrue();
        assertThat(multi.ownsTask("other", "t-1")).isFalse();
    }

    @Test
    void shouldBeReadyOnlyAfterCatchingUpAndFollowUpdatesAndTombstones() {
        PolicyTopicReader reader = reader(null, 2);
        assertThat(reader.ready()).isFalse();
        publish(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 1, LifecycleStatus.ACTIVE));
        publish(PolicyKey.epochKey("acme"), PolicyRecords.epoch("acme", 7));
        reader.pollOnce(Duration.ofMillis(1));
        assertThat(reader.ready()).isTrue();
        assertThat(reader.taskVersion("t-1")).hasValue(1);
        assertThat(reader.epoch("acme")).hasValue(7);
        assertThat(reader.taskActive("t-1")).contains(true);

        publish(PolicyKey.taskKey("t-1"), PolicyRecords.task("t-1", "acme", 2, LifecycleStatus.CANCELLED));
        publish(PolicyKey.epochKey("acme"), null);
        reader.pollOnce(Duration.ofMillis(1));
        assertThat(reader.taskVersion("t-1")).hasValue(2);
        assertThat(reader.taskActive("t-1")).contains(false);
        assertThat(reader.epoch("acme")).isEmpty();
        assertThat(reader.taskActive("t-unknown")).isEmpty();
    }

    @Test
    void shouldForgetARecordThatNoLongerDecodes() {
        PolicyTopicReader reader = reader(null, 0);
        String key = PolicyKey.toolKey("mcp", "search");
        publish(key, PolicyRecords.tool(PolicyRecords.toolBuilder("mcp", "search").build()));
        reader.pollOnce(Duration.ofMillis(1));
        assertThat(reader.tool("mcp", "search")).isPresent();

        publish(key, new byte[] {9, 9});
        reader.pollOnce(Duration.ofMillis(1));
        assertThat(reader.tool("mcp", "search")).isEmpty();
    }

    @Test
    void shouldAllowOnlyAGrantedToolOfAnEnabledIntegration() {
        PolicyTopicReader reader = reader(null, 0);
        publish(PolicyKey.grantKey("acme", "agent"), PolicyRecords.grant("acme", "agent", List.of("search")));
        publish(PolicyKey.integrationKey("acme", "mcp"), PolicyRecords.integration("acme", "mcp", true));
        publish(PolicyKey.integrationKey("acme", "x"), PolicyRecords.integration("acme", "x", false));
        publish(PolicyKey.grantKey("acme", "other"), PolicyRecords.grant("acme", "other", List.of("post")));
        reader.pollOnce(Duration.ofMillis(1));

        assertThat(reader.allows("acme", "agent", "mcp", "search")).isTrue();
        assertThat(reader.allows("acme", "agent", "mcp", "delete")).isFalse();
        assertThat(reader.allows("acme", "other", "x", "post")).isFalse();
        assertThat(reader.allows("beta", "agent", "mcp", "search")).isFalse();
    }

    @Test
    void shouldRefuseToStartOnAMissingTopic() {
        PolicyTopicReader reader = new PolicyTopicReader(consumer, "t.none", null);

        assertThatThrownBy(() -> reader.start(Duration.ofMillis(50), "policy-test"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("create the topics first");
    }

    @Test
    void shouldFollowOnItsThreadAfterCatchingUp() throws Exception {
        PolicyTopicReader assigned = reader(null, 1);
        publish(PolicyKey.epochKey("acme"), PolicyRecords.epoch("acme", 1));
        try (PolicyTopicReader reader = assigned.start(Duration.ofSeconds(5), "policy-test")) {
            assertThat(reader.epoch("acme")).hasValue(1);
            assertThat(reader.following()).isTrue();
            consumer.schedulePollTask(() -> publish(PolicyKey.epochKey("acme"), PolicyRecords.epoch("acme", 2)));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (reader.epoch("acme").getAsLong() != 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(reader.epoch("acme")).hasValue(2);
        }
    }

    @Test
    void shouldFollowWithLongPollsOnceCaughtUp() throws Exception {
        List<Duration> polls = new CopyOnWriteArrayList<>();
        MockConsumer<String, byte[]> timed = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name()) {
            @Override
            public synchronized ConsumerRecords<String, byte[]> poll(Duration timeout) {
                polls.add(timeout);
                return super.poll(Duration.ZERO);
            }
        };
        timed.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0], new Node[0])));
        timed.updateBeginningOffsets(Map.of(P0, 0L));
        timed.updateEndOffsets(Map.of(P0, 1L));
        timed.schedulePollTask(() -> { }); // a first poll that brings nothing: not caught up yet
        timed.schedulePollTask(() -> timed.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, PolicyKey.epochKey("acme"),
                PolicyRecords.epoch("acme", 1))));
        try (PolicyTopicReader reader = new PolicyTopicReader(timed, TOPIC, null).start(Duration.ofSeconds(5),
                "policy-polls")) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (polls.size() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(reader.epoch("acme")).hasValue(1);
        }

        // caught up, a poll ends with a record or its time: a short one would only wake an idle reader more often
        assertThat(polls.subList(0, 2)).containsOnly(Duration.ofMillis(200));
        assertThat(polls.subList(2, polls.size())).isNotEmpty().containsOnly(TopicFollower.CAUGHT_UP_POLL);
    }

    @Test
    void shouldTrustAReadOnlyByTheGatesRule() {
        ToolDescriptor read = PolicyRecords.toolBuilder("mcp", "search").build();

        assertThat(TrustedRead.byDescriptor(read, "sha256:v1")).isTrue();
        assertThat(TrustedRead.byDescriptor(read, "sha256:v2")).isFalse();
        assertThat(TrustedRead.byDescriptor(PolicyRecords.toolBuilder("mcp", "search").setEnabled(false).build(),
                "sha256:v1")).isFalse();
        assertThat(TrustedRead.byDescriptor(PolicyRecords.toolBuilder("mcp", "search").setReadOnlyHint(null).build(),
                "sha256:v1")).isFalse();
        assertThat(TrustedRead.byDescriptor(PolicyRecords.toolBuilder("mcp", "search")
                .setApproval(ApprovalMode.HUMAN).build(), "sha256:v1")).isFalse();
        // at the gate: a READ is evidence when the provider classifies per input or the descriptor says read-only
        ToolDescriptor unhinted = PolicyRecords.toolBuilder("cli", "gh").setReadOnlyHint(false).build();
        assertThat(TrustedRead.evidence(true, true, unhinted)).isTrue();
        assertThat(TrustedRead.evidence(true, false, unhinted)).isFalse();
        assertThat(TrustedRead.evidence(false, true, read)).isFalse();
    }

    @Test
    void shouldReadTheDefaultOrgFromTheFlatConfigurationByTheGatesRule() {
        assertThat(TaskOwnership.defaultOrg(Map.of())).isNull();
        assertThat(TaskOwnership.defaultOrg(Map.of(TaskOwnership.DEFAULT_ORG_CONFIG, " "))).isNull();
        assertThat(TaskOwnership.defaultOrg(Map.of(TaskOwnership.DEFAULT_ORG_CONFIG, "acme"))).isEqualTo("acme");
        assertThatThrownBy(() -> TaskOwnership.defaultOrg(Map.of(TaskOwnership.DEFAULT_ORG_CONFIG, "a b")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(TaskOwnership.DEFAULT_ORG_CONFIG);
    }
}
