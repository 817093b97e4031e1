package io.actiongate.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Finds the node a cluster fault aims at, through the Admin API at the moment of the fault (the leaders,
 * coordinators and the active controller move during the run, so nothing is decided ahead): the leader of a gate
 * changelog partition ({@code describeTopics}), the transaction coordinator of a gate's transactional id
 * ({@code listTransactions}, then {@code describeTransactions}, which finds the coordinator of the id), the active
 * controller ({@code describeMetadataQuorum}). {@code pick} is the fault's seeded target, used modulo the choices.
 */
final class FaultTargets {

    /** A node to hit and why. */
    record Target(int nodeId, String why) {
    }

    private static final long TIMEOUT_S = 20;

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

    /** The transaction coordinator of one of the gate's transactional ids ({@code <application.id>-...}). */
    Optional<Target> transactionCoordinator(int pick) throws Exception {
        List<String> ids = admin.listTransactions().all().get(TIMEOUT_S, TimeUnit.SECONDS).stream()
                .map(TransactionListing::transactionalId).filter(id -> id.startsWith(applicationId + "-"))
                .sorted().toList();
        if (ids.isEmpty()) {
            return Optional.empty();
        }
        String id = ids.get(Math.floorMod(pick, ids.size()));
        TransactionDescription d = admin.describeTransactions(List.of(id)).description(id)
                .get(TIMEOUT_S, TimeUnit.SECONDS);
        return Optional.of(new Target(d.coordinatorId(), "transaction coordinator of " + id + " (" + d.state()
                + ")"));
    }

    /** The active controller: the leader of the KRaft metadata quorum. */
    Optional<Target> activeController() throws Exception {
        int leader = admin.describeMetadataQuorum().quorumInfo().get(TIMEOUT_S, TimeUnit.SECONDS).leaderId();
        return leader < 0 ? Optional.empty() : Optional.of(new Target(leader, "active controller"));
    }
}
