package io.actiongate.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Finds the node a cluster fault aims at, through the Admin API at the moment of the fault (the leaders,
 * coordinators and the active controller move during the run, so nothing is decided ahead): the leader of a gate
 * changelog partition ({@code describeTopics}), the transaction coordinator of a gate's transactional id
 * ({@code listTransactions} from every broker that answers, then {@code describeTransactions}, which finds the
 * coordinator of the id; looked up again when a broker left the metadata meanwhile), the active
 * controller ({@code describeMetadataQuorum}). {@code pick} is the fault's seeded target, used modulo the choices.
 */
final class FaultTargets {

    /** A node to hit and why. */
    record Target(int nodeId, String why) {
    }

    private static final long TIMEOUT_S = 20;
    static final int ATTEMPTS = 5;
    private static final long RETRY_BACKOFF_MS = 500;

    private final Admin admin;
    private final String applicationId;

    FaultTargets(Admin admin, String applicationId) {
        this.admin = admin;
        this.applicationId = applicationId;
    }

    /** The leader of one partition of the gate's changelog topics ({@code <application.id>-*-changelog}). */
    Optional<Target> changelogLeader(int pick) throws Exception {
        List<String> changelogs = admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).stream()
                .filter(t -> t.startsWith(applicationId + "-") && t.endsWith("-changelog")).sorted().toList();
        if (changelogs.isEmpty()) {
            return Optional.empty();
        }
        Map<String, TopicDescription> described = admin.describeTopics(changelogs).allTopicNames()
                .get(TIMEOUT_S, TimeUnit.SECONDS);
        List<String> names = new ArrayList<>();
        List<TopicPartitionInfo> partitions = new ArrayList<>();
        for (String topic : changelogs) {
            described.get(topic).partitions().stream().sorted(Comparator.comparingInt(TopicPartitionInfo::partition))
                    .filter(p -> p.leader() != null && !p.leader().isEmpty())
                    .forEach(p -> {
                        names.add(topic + "-" + p.partition());
                        partitions.add(p);
                    });
        }
        if (partitions.isEmpty()) {
            return Optional.empty();
        }
        int i = Math.floorMod(pick, partitions.size());
        return Optional.of(new Target(partitions.get(i).leader().id(), "leader of " + names.get(i)));
    }

    /**
     * The transaction coordinator of one of the gate's transactional ids ({@code <application.id>-...}).
     *
     * <p>{@code listTransactions} asks every broker the metadata named. When one of them left the metadata between
     * that lookup and its request (killed, paused, cut off: what this run does), Kafka 4.4's Admin client sends the
     * broker's key back to the lookup stage (KAFKA-20673, for leaders that left the cluster), and the all-brokers
     * lookup rejects any key but its sentinel: that broker's answer fails with {@code IllegalArgumentException:
     * Unexpected key set: [BrokerKey(brokerId=...)]} (seen in the 10-minute cluster report), and so does
     * {@code all()}. So the ids are taken from every broker that did answer, and when none named one the whole
     * call is made again with a fresh lookup, up to {@link #ATTEMPTS} times.
     */
    Optional<Target> transactionCoordinator(int pick) throws Exception {
        Exception last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                List<String> ids = gateTransactionalIds(admin.listTransactions().byBrokerId()
                        .get(TIMEOUT_S, TimeUnit.SECONDS), applicationId);
                if (!ids.isEmpty()) {
                    String id = ids.get(Math.floorMod(pick, ids.size()));
                    // describeTransactions finds the coordinator itself (FindCoordinator), not by broker list
                    TransactionDescription d = admin.describeTransactions(List.of(id)).description(id)
                            .get(TIMEOUT_S, TimeUnit.SECONDS);
                    return Optional.of(new Target(d.coordinatorId(), "transaction coordinator of " + id + " ("
                            + d.state() + (attempt > 1 ? ", lookup attempt " + attempt : "") + ")"));
                }
            } catch (ExecutionException | TimeoutException e) {
                last = e; // the coordinator moved or a broker left while we asked: look up again
            }
            Thread.sleep(RETRY_BACKOFF_MS * attempt);
        }
        if (last != null) {
            throw last;
        }
        return Optional.empty();
    }

    /**
     * The gate's transactional ids, sorted, from every broker whose {@code listTransactions} answer arrived; a broker
     * whose answer failed is left out (the others still name the ids whose coordinators they are).
     */
    static List<String> gateTransactionalIds(Map<Integer, KafkaFuture<Collection<TransactionListing>>> byBroker,
                                             String applicationId) throws InterruptedException {
        TreeSet<String> ids = new TreeSet<>();
        for (KafkaFuture<Collection<TransactionListing>> answer : byBroker.values()) {
            try {
                answer.get(TIMEOUT_S, TimeUnit.SECONDS).stream().map(TransactionListing::transactionalId)
                        .filter(id -> id.startsWith(applicationId + "-")).forEach(ids::add);
            } catch (ExecutionException | TimeoutException e) {
                // this broker left the metadata or did not answer in time
            }
        }
        return List.copyOf(ids);
    }

    /** The active controller: the leader of the KRaft metadata quorum. */
    Optional<Target> activeController() throws Exception {
        int leader = admin.describeMetadataQuorum().quorumInfo().get(TIMEOUT_S, TimeUnit.SECONDS).leaderId();
        return leader < 0 ? Optional.empty() : Optional.of(new Target(leader, "active controller"));
    }
}
