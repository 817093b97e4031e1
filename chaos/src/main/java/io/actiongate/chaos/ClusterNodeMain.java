package io.actiongate.chaos;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;

import io.actiongate.kafka.KafkaClients;

/**
 * One node of the chaos run's three-node KRaft cluster ({@code --cluster}), in its own JVM: a combined broker and
 * controller on fixed loopback ports with a data directory that survives {@code kill -9}. Every node is formatted
 * with the same cluster id and the same static voter set. Prints {@value #READY} once its own broker is registered
 * and unfenced (it appears in {@code describeCluster} on its own listener).
 *
 * <p>The settings are those of a production cluster where they matter to the run: replication factor 3 for every
 * topic (default, offsets, transaction state), {@code min.insync.replicas=2} (also for the transaction state log),
 * unclean leader election off. See {@link #properties}.
 */
public final class ClusterNodeMain {

    static final String READY = "CHAOS-CLUSTER-NODE-READY";
    static final String CLIENT_LISTENER = "CLIENT";
    static final String CONTROLLER_LISTENER = "CONTROLLER";
    /** A node is dropped from the cluster this long after its last heartbeat (Kafka: 9 s). */
    static final long BROKER_SESSION_TIMEOUT_MS = 6_000;

    private ClusterNodeMain() {
    }

    /**
     * {@code NODE_ID CLIENT_PORT VOTERS DATA_DIR CLUSTER_ID [HOST]}, VOTERS as {@code 1@127.0.0.1:p1,2@...}, HOST the
     * address both listeners bind and the client one advertises (default 127.0.0.1; the node's own address in its
     * network namespace with {@code --network-namespaces}).
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5 && args.length != 6) {
            System.err.println("usage: ClusterNodeMain NODE_ID CLIENT_PORT VOTERS DATA_DIR CLUSTER_ID [HOST]");
            System.exit(2);
        }
        String host = args.length == 6 ? args[5] : "127.0.0.1";
        int nodeId = Integer.parseInt(args[0]);
        int clientPort = Integer.parseInt(args[1]);
        String voters = args[2];
        Path logDir = Path.of(args[3]).resolve("kraft-logs");
        Files.createDirectories(logDir);
        Map<String, String> props = properties(nodeId, host, clientPort, voters, logDir);
        KafkaConfig config = new KafkaConfig(props, false);
        format(nodeId, args[4], logDir);
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdown();
            server.awaitShutdown();
        }, "chaos-node-shutdown"));
        awaitRegistered(nodeId, host + ":" + clientPort);
        System.out.println(READY + " node " + nodeId + " " + host + ":" + clientPort);
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /** The node's broker properties. */
    static Map<String, String> properties(int nodeId, int clientPort, String voters, Path logDir) {
        return properties(nodeId, "127.0.0.1", clientPort, voters, logDir);
    }

    /** The node's broker properties, both listeners on {@code host}. */
    static Map<String, String> properties(int nodeId, String host, int clientPort, String voters, Path logDir) {
        int controllerPort = controllerPort(nodeId, voters);
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.voters", voters);
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", CLIENT_LISTENER);
        p.put("listeners", CLIENT_LISTENER + "://" + host + ":" + clientPort + "," + CONTROLLER_LISTENER
                + "://" + host + ":" + controllerPort);
        p.put("advertised.listeners", CLIENT_LISTENER + "://" + host + ":" + clientPort);
        p.put("listener.security.protocol.map", CLIENT_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER
                + ":PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        p.put("metadata.log.dir", logDir.toString());

        // replicated as in production: every topic on all three nodes, two must acknowledge, no unclean election
        p.put("default.replication.factor", "3");
        p.put("min.insync.replicas", "2");
        p.put("unclean.leader.election.enable", "false");
        p.put("offsets.topic.replication.factor", "3");
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.replication.factor", "3");
        p.put("transaction.state.log.min.isr", "2");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("share.coordinator.state.topic.replication.factor", "3");
        p.put("share.coordinator.state.topic.min.isr", "2");

        // the chaos run's timings: a killed gate's transaction aborted soon, a paused node dropped soon
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "5000");
        p.put("group.min.session.timeout.ms", "1000");
        p.put("broker.session.timeout.ms", Long.toString(BROKER_SESSION_TIMEOUT_MS));
        p.put("broker.heartbeat.interval.ms", "1000");
        p.put("replica.lag.time.max.ms", "10000");

        // small and quiet: three nodes share two cores with the gates
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("num.replica.fetchers", "1");
        p.put("background.threads", "2");
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        p.put("log.cleaner.threads", "1");
        return p;
    }

    /** The controller port of {@code nodeId} in {@code voters}. */
    static int controllerPort(int nodeId, String voters) {
        for (String voter : voters.split(",")) {
            String[] idAndAddress = voter.split("@");
            if (Integer.parseInt(idAndAddress[0]) == nodeId) {
                return Integer.parseInt(idAndAddress[1].substring(idAndAddress[1].lastIndexOf(':') + 1));
            }
        }
        throw new IllegalArgumentException("node " + nodeId + " is not in the voters " + voters);
    }

    /** As {@code kafka-storage format --cluster-id CLUSTER_ID}, once: a restarted node reuses its storage. */
    private static void format(int nodeId, String clusterId, Path logDir) throws Exception {
        if (Files.exists(logDir.resolve("meta.properties"))) {
            return;
        }
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                .setNodeId(nodeId)
                .setClusterId(clusterId)
                .setDirectories(List.of(logDir.toString()))
                .setMetadataLogDirectory(logDir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .run();
    }

    private static void awaitRegistered(int nodeId, String bootstrap) throws InterruptedException {
        try (Admin admin = KafkaClients.of(bootstrap, Map.of()).admin("chaos-node-" + nodeId)
                .defaultTo(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000)
                .defaultTo(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000).create()) {
            while (true) {
                try {
                    if (admin.describeCluster(new DescribeClusterOptions().timeoutMs(3_000)).nodes()
                            .get(4, TimeUnit.SECONDS).stream().map(Node::id).anyMatch(id -> id == nodeId)) {
                        return;
                    }
                } catch (Exception e) {
                    // not yet: the quorum has no leader, or this broker is not registered yet
                }
                Thread.sleep(200);
            }
        }
    }
}
