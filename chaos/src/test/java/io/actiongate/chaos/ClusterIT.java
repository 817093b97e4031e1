package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.actiongate.chaos.check.ReplicationCheck;
import io.actiongate.topics.admin.TopicsCreator;

/**
 * The pieces of {@code --cluster} mode on a real three-node KRaft cluster of child JVMs (as the run starts it):
 * every topic replicated three times with two in sync, and the cluster faults' targets found through the Admin API
 * and hit: an in-flight transaction commits after its coordinator is killed, and the quorum elects a new controller
 * after the active one is killed. (A whole cluster chaos run takes far more than CI's minutes on two cores.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("system")
class ClusterIT {

    private static final String CHANGELOG = ChaosRun.APPLICATION_ID + "-gate-actions-changelog";
    private static final String TXN_ID = ChaosRun.APPLICATION_ID + "-it-0";
    private static Path dir;
    private static ClusterNodes cluster;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("chaos-cluster-it-");
        Path logs = Files.createDirectories(dir.resolve("logs"));
        cluster = ClusterNodes.create(3, dir, logs, "256m");
        cluster.startAll(180_000);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000));
    }

    @AfterAll
    static void stop() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            for (Child node : cluster.nodes()) {
                node.stop(15_000);
            }
        }
    }

    @Test
    @Order(1)
    void shouldReplicateEveryTopicAndFindAndHitTheClusterFaultTargetsThroughTheAdminApi() throws Exception {
        // the actiongate topics as the run creates them, and a changelog as Streams creates it (no topic configs)
        new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of("it.", 2, (short) 3));
        admin.createTopics(List.of(new NewTopic(CHANGELOG, 2, (short) 3))).all().get(60, TimeUnit.SECONDS);
        commitAnOffset();

        try (KafkaProducer<String, String> producer = transactionalProducer()) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(CHANGELOG, 0, "k", "in flight")).get(60, TimeUnit.SECONDS);

            ReplicationCheck.Findings findings = ReplicationCheck.run(admin, 3, 2);
            assertThat(findings.problems()).isEmpty();
            assertThat(findings.topics()).contains("__consumer_offsets", "__transaction_state", "it.proposals",
                    "it.receipts", CHANGELOG);

            FaultTargets targets = new FaultTargets(admin, ChaosRun.APPLICATION_ID);
            FaultTargets.Target leader = targets.changelogLeader(0).orElseThrow();
            int leaderOfPartition0 = admin.describeTopics(List.of(CHANGELOG)).allTopicNames().get().get(CHANGELOG)
                    .partitions().get(0).leader().id();
            assertThat(leader.nodeId()).isEqualTo(leaderOfPartition0);
            assertThat(leader.why()).isEqualTo("leader of " + CHANGELOG + "-0");

            FaultTargets.Target coordinator = targets.transactionCoordinator(0).orElseThrow();
            assertThat(coordinator.why()).contains(TXN_ID).contains(TransactionState.ONGOING.toString());
            assertThat(coordinator.nodeId()).isBetween(1, 3);

            // kill -9 the coordinator mid-transaction: another node takes the id over, the transaction commits
            cluster.node(coordinator.nodeId()).kill9();
            int moved = await(() -> {
                Optional<FaultTargets.Target> now = targets.transactionCoordinator(0);
                return now.isPresent() && now.get().nodeId() != coordinator.nodeId() ? now.get().nodeId() : null;
            });
            assertThat(moved).isNotEqualTo(coordinator.nodeId());
            producer.commitTransaction();
            restart(coordinator.nodeId());
        }

        // kill -9 the active controller: the other two voters elect a new one
        FaultTargets targets = new FaultTargets(admin, ChaosRun.APPLICATION_ID);
        int controller = targets.activeController().orElseThrow().nodeId();
        cluster.node(controller).kill9();
        int elected = await(() -> {
            Optional<FaultTargets.Target> now = targets.activeController();
            return now.isPresent() && now.get().nodeId() != controller ? now.get().nodeId() : null;
        });
        assertThat(elected).isBetween(1, 3).isNotEqualTo(controller);
        restart(controller);
    }

    @Test
    @Order(2) // after the other: its topics of one replica would be findings there, and it needs the internal topics
    void shouldReportATopicWithOneReplicaOrOneInSyncReplica() throws Exception {
        admin.createTopics(List.of(new NewTopic("rf-one", 1, (short) 1),
                new NewTopic("isr-one", 1, (short) 3).configs(Map.of("min.insync.replicas", "1"))))
                .all().get(60, TimeUnit.SECONDS);

        ReplicationCheck.Findings findings = ReplicationCheck.run(admin, 3, 2);

        assertThat(findings.problems()).anySatisfy(p -> assertThat(p).startsWith("rf-one-0 has 1 replica(s)"))
                .anySatisfy(p -> assertThat(p).startsWith("isr-one has min.insync.replicas=1"))
                .noneSatisfy(p -> assertThat(p).startsWith("it."));
        admin.deleteTopics(List.of("rf-one", "isr-one")).all().get(60, TimeUnit.SECONDS);
    }

    private static void restart(int nodeId) throws InterruptedException {
        Child node = cluster.node(nodeId);
        node.start();
        assertThat(node.awaitReady(180_000)).as(node.name() + " back").isTrue();
    }

    private static <T> T await(Callable<T> probe) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                T value = probe.call();
                if (value != null) {
                    return value;
                }
            } catch (Exception e) {
                // the cluster is electing: ask again
            }
            Thread.sleep(500);
        }
        throw new AssertionError("not within 90 s");
    }

    private static void commitAnOffset() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "cluster-it");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.commitSync(Map.of(new TopicPartition("it.receipts", 0), new OffsetAndMetadata(0)),
                    Duration.ofSeconds(60));
        }
    }

    private static KafkaProducer<String, String> transactionalProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TXN_ID);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 120_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }
}
