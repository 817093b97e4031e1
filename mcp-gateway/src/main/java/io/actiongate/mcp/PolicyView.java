package io.actiongate.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.Integration;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.topics.Topics;

/**
 * The gateway's read-only copy of the {@code policy} topic: the trusted tool descriptors (what an operator imported),
 * grants and integrations, each org's authorization epoch and each task's version and owning org. The gate re-checks all of it; the gateway uses it only to
 * decide whether a call is a trusted read it may pass straight through, and to fill the proposal's epoch and task
 * version. Read from the beginning, with no consumer group; {@link #start} returns once the view has caught up.
 * The node's {@code POST /v1/proposals} reads task versions and epochs from the same view.
 */
public final class PolicyView implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyView.class);

    /** What an operator trusted about one tool. */
    record TrustedTool(String provider, String toolName, String operation, String schemaHash, Boolean readOnlyHint,
            String approval, boolean enabled, int maxInputBytes) {

        /** A read that needs nobody: the only kind the gateway calls upstream without a proposal. */
        boolean isTrustedRead(String currentSchemaHash) {
            return enabled && Boolean.TRUE.equals(readOnlyHint) && ApprovalMode.NONE.name().equals(approval)
                    && schemaHash.equals(currentSchemaHash);
        }
    }

    private final Consumer<String, byte[]> consumer;
    private final String topic;
    private final Map<String, TrustedTool> tools = new ConcurrentHashMap<>();
    private final Map<String, Long> epochs = new ConcurrentHashMap<>();
    private final Map<String, Long> tasks = new ConcurrentHashMap<>();
    /** Each task's owning org ({@code TaskState.org_id}); a task without one is absent: it is nobody's. */
    private final Map<String, String> taskOwners = new ConcurrentHashMap<>();
    private final Map<String, Boolean> activeTasks = new ConcurrentHashMap<>();
    private final Map<String, java.util.Set<String>> grants = new ConcurrentHashMap<>();
    private final Map<String, Boolean> integrations = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private Thread thread;

    public PolicyView(Consumer<String, byte[]> consumer, String prefix) {
        this.consumer = consumer;
        this.topic = Topics.POLICY.name(prefix);
    }

    public PolicyView start(Duration catchUp) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, catchUp);
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist; create the topics first");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, catchUp);
        long deadline = System.nanoTime() + catchUp.toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the policy topic was not read within " + catchUp);
            }
            pollOnce();
        }
        thread = new Thread(this::run, "mcp-gateway-policy");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    Optional<TrustedTool> tool(String provider, String toolName) {
        return Optional.ofNullable(tools.get(provider + ":" + toolName));
    }

    /** Whether the org's profile is granted {@code tool} and the org's integration of {@code provider} is on. */
    boolean allows(String org, String profile, String provider, String tool) {
        return grants.getOrDefault(org + ":" + profile, java.util.Set.of()).contains(tool)
                && integrations.getOrDefault(org + ":" + provider, false);
    }

    public OptionalLong epoch(String org) {
        Long e = epochs.get(org);
        return e == null ? OptionalLong.empty() : OptionalLong.of(e);
    }

    public OptionalLong taskVersion(String task) {
        Long v = tasks.get(task);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    /** Whether {@code task} is known and owned by {@code org}: a task of another org or of none never is. */
    public boolean ownsTask(String org, String task) {
        return org != null && org.equals(taskOwners.get(task));
    }

    /** Whether the task is {@code ACTIVE}; empty for a task the policy does not know. */
    Optional<Boolean> taskActive(String task) {
        return Optional.ofNullable(activeTasks.get(task));
    }

    /** Whether the view still follows the policy topic (false once its thread stopped on an error). */
    boolean following() {
        return thread != null && thread.isAlive() && running;
    }

    private void run() {
        try {
            while (running) {
                pollOnce();
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            // without fresh policy nothing is a trusted read any more: every call becomes a proposal
            LOG.error("the policy view stopped; every call now needs the gate: {}", e.toString());
            tools.clear();
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private void pollOnce() {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            if (r.key() == null) {
                continue;
            }
            if (r.value() == null) {
                forget(r.key());
                continue;
            }
            try {
                apply(r.key(), Topics.POLICY.valueSerde().deserializer().deserialize(r.topic(), r.value()));
            } catch (AvroDecodeException e) {
                LOG.warn("undecodable policy record at partition {} offset {}: {}", r.partition(), r.offset(),
                        e.getMessage());
            }
        }
    }

    private void apply(String key, PolicyRecord record) {
        Object body = record.getBody();
        if (body instanceof ToolDescriptor t) {
            tools.put(t.getProvider() + ":" + t.getToolName(), new TrustedTool(t.getProvider(), t.getToolName(),
                    t.getOperation(), t.getSchemaHash(), t.getReadOnlyHint(), t.getApproval().name(), t.getEnabled(),
                    t.getMaxInputBytes()));
        } else if (body instanceof AuthorizationEpoch e) {
            epochs.put(e.getOrgId(), e.getEpoch());
        } else if (body instanceof TaskState s) {
            tasks.put(s.getTaskId(), s.getVersion());
            if (s.getOrgId() == null) {
                taskOwners.remove(s.getTaskId());
            } else {
                taskOwners.put(s.getTaskId(), s.getOrgId());
            }
            activeTasks.put(s.getTaskId(), s.getStatus() == io.actiongate.avro.LifecycleStatus.ACTIVE);
        } else if (body instanceof Grant g) {
            grants.put(g.getOrgId() + ":" + g.getProfileId(), java.util.Set.copyOf(g.getTools()));
        } else if (body instanceof Integration i) {
            integrations.put(i.getOrgId() + ":" + i.getProvider(), i.getEnabled());
        }
    }

    private void forget(String key) {
        if (key.startsWith("tool:")) {
            tools.remove(key.substring("tool:".length()));
        } else if (key.startsWith("epoch:")) {
            epochs.remove(key.substring("epoch:".length()));
        } else if (key.startsWith("task:")) {
            tasks.remove(key.substring("task:".length()));
            taskOwners.remove(key.substring("task:".length()));
            activeTasks.remove(key.substring("task:".length()));
        } else if (key.startsWith("grant:")) {
            grants.remove(key.substring("grant:".length()));
        } else if (key.startsWith("integration:")) {
            integrations.remove(key.substring("integration:".length()));
        }
    }

    @Override
    public void close() {
        running = false;
        if (thread == null) {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            return;
        }
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
