package io.actiongate.topics.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Transactions left open on a partition after their coordinator ended or forgot them: "hanging" (KIP-664). A
 * partition's last stable offset cannot pass such a transaction, so every {@code read_committed} reader of the
 * partition (a gate task restoring or reading it, an executor, a downstream service) stops there until a marker ends
 * it. Worse, a later transaction of the same producer id that writes the same partition takes the open records into
 * its own commit, whatever their writer was told.
 *
 * <p>An open transaction of a partition ({@code DescribeProducers}: a producer with a current transaction start
 * offset) hangs when it is older than {@code minAge}, holds the partition's last stable offset back (the LSO is at or
 * before its start; a producer state that still names a start offset behind the LSO holds nothing) and its
 * producer's transaction at the coordinator will not end it: no transactional id has that producer id any more, or
 * the coordinator's transaction is not open (ongoing or preparing to commit, abort or fence) with this partition in
 * it. A real transaction cannot stay open past its own
 * timeout (the coordinator aborts it), so {@code minAge} above the longest transaction timeout in use leaves no doubt.
 *
 * <p>Seen with Kafka 4.4 on a single broker killed with {@code kill -9} while a gate's transaction was open
 * (docs/chaos.md, "Hanging transactions after a single broker's kill -9"). There is deliberately no automatic abort
 * here: the coordinator had decided COMMIT for the transaction seen, and later transactions of the same producer
 * had already committed its records on some of its partitions, so an abort marker on the others would have rolled
 * a gate's state back behind a reservation it had published. Which marker is right is the operator's call.
 */
public final class HangingTransactions {

    /** Coordinator states of a transaction not ended yet: the coordinator itself will still write its markers. */
    public static final Set<TransactionState> OPEN_AT_COORDINATOR = Collections.unmodifiableSet(EnumSet.of(
            TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
            TransactionState.PREPARE_EPOCH_FENCE));

    /** One hanging transaction on one partition, and why it is one. */
    public record Hanging(TopicPartition partition, long producerId, int producerEpoch, int coordinatorEpoch,
                          long startOffset, long lastTimestamp, String reason) {

        /** One line for logs and reports: where, whose, since when, why. */
        public String describe() {
            return partition + ": transaction of producer " + producerId + " (epoch " + producerEpoch
                    + ") open since offset " + startOffset + ", last write at " + java.time.Instant.ofEpochMilli(
                    lastTimestamp) + "; " + reason;
        }
    }

    private HangingTransactions() {
    }

    /**
     * The hanging transactions of {@code partitions} at {@code nowMs}, open for longer than {@code minAge}. A
     * partition whose leader cannot be asked is left out (the next look finds it).
     */
    public static List<Hanging> find(Admin admin, Collection<TopicPartition> partitions, Duration minAge, long nowMs,
                                     Duration timeout) throws InterruptedException, TimeoutException {
        Map<TopicPartition, List<ProducerState>> open = openTransactions(admin, partitions, minAge, nowMs, timeout);
        if (open.isEmpty()) {
            return List.of();
        }
        Map<Long, TransactionDescription> coordinator = coordinatorView(admin, open.values().stream()
                .flatMap(List::stream).map(ProducerState::producerId).distinct().toList(), timeout);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> stable = await(admin.listOffsets(
                open.keySet().stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())),
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all(), "last stable offsets could not be read",
                timeout);
        List<Hanging> hanging = new ArrayList<>();
        open.forEach((partition, producers) -> {
            for (ProducerState producer : producers) {
                reason(partition, producer.producerEpoch(), producer.currentTransactionStartOffset().getAsLong(),
                        stable.get(partition).offset(), coordinator.get(producer.producerId())).ifPresent(
                        why -> hanging.add(new Hanging(partition, producer.producerId(), producer.producerEpoch(),
                                Math.max(0, producer.coordinatorEpoch().orElse(0)),
                                producer.currentTransactionStartOffset().getAsLong(), producer.lastTimestamp(), why)));
            }
        });
        return hanging;
    }

    /** Every partition of {@code topics}, as the cluster describes them now. */
    public static List<TopicPartition> partitionsOf(Admin admin, Collection<String> topics, Duration timeout)
            throws InterruptedException, TimeoutException {
        List<TopicPartition> partitions = new ArrayList<>();
        if (topics.isEmpty()) {
            return partitions;
        }
        await(admin.describeTopics(topics).allTopicNames(), "topics could not be described", timeout)
                .forEach((name, description) -> description.partitions()
                        .forEach(p -> partitions.add(new TopicPartition(name, p.partition()))));
        return partitions;
    }

    /**
     * Why an open transaction of {@code producerEpoch} on {@code partition}, starting at {@code startOffset}, hangs,
     * given the partition's last stable offset and its producer's transaction at the coordinator ({@code null}: no
     * transactional id has the producer id); empty when it holds nothing back or the coordinator will still end it.
     * The caller has checked its age.
     */
    static Optional<String> reason(TopicPartition partition, int producerEpoch, long startOffset,
                                   long lastStableOffset, TransactionDescription coordinator) {
        if (lastStableOffset > startOffset) {
            return Optional.empty();
        }
        if (coordinator == null) {
            return Optional.of("no transactional id at the coordinator has this producer id");
        }
        if (OPEN_AT_COORDINATOR.contains(coordinator.state())) {
            if (coordinator.topicPartitions().contains(partition)) {
                return Optional.empty();
            }
            return Optional.of("the coordinator's " + coordinator.state() + " transaction (epoch "
                    + coordinator.producerEpoch() + ") does not hold this partition");
        }
        return Optional.of("the coordinator's transaction is " + coordinator.state() + " (epoch "
                + coordinator.producerEpoch() + "): it will write no marker here");
    }

    private static Map<TopicPartition, List<ProducerState>> openTransactions(
            Admin admin, Collection<TopicPartition> partitions, Duration minAge, long nowMs, Duration timeout)
            throws InterruptedException, TimeoutException {
        Map<TopicPartition, List<ProducerState>> open = new HashMap<>();
        if (partitions.isEmpty()) {
            return open;
        }
        DescribeProducersResult result = admin.describeProducers(partitions);
        for (TopicPartition partition : partitions) {
            DescribeProducersResult.PartitionProducerState state;
            try {
                state = result.partitionResult(partition).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                continue; // leader unavailable or moving: asked again next time
            }
            for (ProducerState producer : state.activeProducers()) {
                if (producer.currentTransactionStartOffset().isPresent()
                        && nowMs - producer.lastTimestamp() >= minAge.toMillis()) {
                    open.computeIfAbsent(partition, p -> new ArrayList<>()).add(producer);
                }
            }
        }
        return open;
    }

    /** The coordinator's current transaction of each producer id that a transactional id still has. */
    private static Map<Long, TransactionDescription> coordinatorView(Admin admin, List<Long> producerIds,
                                                                     Duration timeout)
            throws InterruptedException, TimeoutException {
        Collection<TransactionListing> listings = await(admin.listTransactions(new ListTransactionsOptions()
                .filterProducerIds(producerIds)).all(), "transactions could not be listed", timeout);
        Map<Long, TransactionDescription> view = new HashMap<>();
        if (listings.isEmpty()) {
            return view;
        }
        Map<String, TransactionDescription> described = await(admin.describeTransactions(listings.stream()
                .map(TransactionListing::transactionalId).toList()).all(), "transactions could not be described",
                timeout);
        described.values().forEach(d -> view.put(d.producerId(), d));
        return view;
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, String failure, Duration timeout)
            throws InterruptedException, TimeoutException {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new TopicsException(failure + ": " + e.getCause().getMessage(), e.getCause());
        }
    }
}
