package io.actiongate.loadtest.harness;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.streams.StreamsConfig;

import io.actiongate.gate.GateConfig;
import io.actiongate.topics.admin.TopicsCreator;

/** What the parts running actiongate nodes in JVMs of their own ({@link NodeJvm}) share. */
public final class JvmNodes {

    private static final Duration ASSIGN_TIMEOUT = Duration.ofSeconds(180);

    private JvmNodes() {
    }

    /** Creates every actiongate topic under {@code prefix} with {@code partitions} partitions. */
    public static void createTopics(String bootstrap, String prefix, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(prefix, partitions, (short) 1));
        }
    }

    /**
     * The settings of one benchmark node, as row f's gate has them (the same commit interval, executor group,
     * webhook connector on the loopback provider), under its own {@code stateDir}; every instance of one
     * measurement shares {@code applicationId}, so Kafka Streams balances the partitions between them.
     * {@code nodeSettings} (the benchmark's {@code --set}) go over them.
     */
    public static Map<String, String> settings(String bootstrap, String prefix, String applicationId, Path stateDir,
                                        Workload workload, URI provider, Map<String, String> nodeSettings) {
        Map<String, String> config = new LinkedHashMap<>(workload.gateSettings());
        config.put(GateConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(GateConfig.TOPIC_PREFIX_CONFIG, prefix);
        config.put(GateConfig.APPLICATION_ID_CONFIG, applicationId);
        config.put(GateConfig.STATE_DIR_CONFIG, stateDir.toString());
        config.put(GateConfig.STREAMS_PREFIX + StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, BrokerRuns.COMMIT_INTERVAL_MS);
        config.put("executor.group.id", applicationId + "-executor");
        config.put("http.port", "0");
        config.put("http.bind.address", "127.0.0.1");
        config.put("connectors.webhook.base-url", provider.toString());
        config.put("connectors.webhook.operations", Workload.SEND_TOOL);
        config.put("connectors.webhook.read-operations", Workload.READ_TOOL);
        config.put("connectors.webhook.response-timeout-ms", "10000");
        config.putAll(nodeSettings);
        return config;
    }

    /**
     * Waits until every node's gate is RUNNING with at least one partition of the proposals topic, all
     * {@code partitions} of them held between the nodes, the same on two polls in a row (a rebalance can follow
     * the first assignment when a second instance joins). Returns the partitions per node.
     */
    public static List<Integer> awaitAssigned(List<NodeJvm> nodes, int partitions) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + ASSIGN_TIMEOUT.toNanos();
        List<NodeJvm.Status> previous = null;
        while (true) {
            List<NodeJvm.Status> now = new java.util.ArrayList<>();
            for (NodeJvm node : nodes) {
                now.add(node.status());
            }
            boolean assigned = now.stream().allMatch(s -> s.running() && s.partitions() > 0)
                    && now.stream().mapToInt(NodeJvm.Status::partitions).sum() == partitions;
            if (assigned && now.equals(previous)) {
                return now.stream().map(NodeJvm.Status::partitions).toList();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the gates did not take all " + partitions + " partitions: " + now
                        .stream().map(s -> s.state() + "/" + s.partitions()).collect(Collectors.joining(", ")));
            }
            previous = assigned ? now : null;
            Thread.sleep(500);
        }
    }
}
