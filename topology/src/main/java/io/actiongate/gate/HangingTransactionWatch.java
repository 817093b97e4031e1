package io.actiongate.gate;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.HangingTransactions;

/**
 * Looks for hanging transactions on the gate's partitions every {@code gate.transactions.hanging.check.interval}
 * ({@link HangingTransactions}): the contract's topics under the gate's prefix and the gate's internal topics
 * (changelogs and repartition topics, named after its application id), those its principal may read (with ACLs: its
 * inputs and internal topics, where a hanging transaction stops the gate). A gate task whose changelog partition
 * holds one never finishes restoring, and every action of that partition waits, so each one found is logged at ERROR
 * once, with what ends it, and the current number is kept for {@code actiongate_gate_hanging_transactions}.
 *
 * <p>It reports and never aborts: the right marker (commit or abort) depends on what the coordinator decided and on
 * what later transactions of the same producer already committed on the transaction's other partitions; an abort
 * where the coordinator had decided commit rolls the gate's state back behind records it published (docs/operating.md,
 * "Hanging transactions").
 */
public final class HangingTransactionWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HangingTransactionWatch.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    /** What one look does: the hanging transactions of {@code partitions} now. */
    interface Finder {
        List<HangingTransactions.Hanging> find(List<TopicPartition> partitions) throws Exception;
    }

    /** The gate's partitions now. */
    interface Partitions {
        List<TopicPartition> list() throws Exception;
    }

    private final Partitions partitions;
    private final Finder finder;
    /** Partition, producer id, epoch and start offset of each one logged: a look logs only those not seen before. */
    private final Set<String> reported = new HashSet<>();
    private volatile int current;
    private final AutoCloseable resources;
    private ScheduledExecutorService scheduler;

    HangingTransactionWatch(Partitions partitions, Finder finder, AutoCloseable resources) {
        this.partitions = partitions;
        this.finder = finder;
        this.resources = resources;
    }

    /** A watch over {@code config}'s topics with its own admin client; not started. */
    static HangingTransactionWatch of(GateConfig config) {
        Admin admin = KafkaClients.of(config.kafkaClientProperties()).admin("actiongate-gate-hanging-transactions")
                .set(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT.toMillis())
                .create();
        Clock clock = Clock.systemUTC();
        Duration minAge = config.hangingMinAge();
        return new HangingTransactionWatch(() -> gatePartitions(admin, config.topicPrefix(), config.applicationId()),
                found -> HangingTransactions.find(admin, found, minAge, clock.millis(), CALL_TIMEOUT), admin);
    }

    /** The partitions of the contract's topics under {@code prefix} and of the topics named {@code applicationId-*}. */
    static List<TopicPartition> gatePartitions(Admin admin, String prefix, String applicationId) throws Exception {
        Set<String> names = admin.listTopics().names().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return HangingTransactions.partitionsOf(admin, gateTopics(names, prefix, applicationId), CALL_TIMEOUT);
    }

    /** Of {@code names}, the contract's topics under {@code prefix} and the gate's internal ones. */
    static List<String> gateTopics(Set<String> names, String prefix, String applicationId) {
        Set<String> contract = new HashSet<>(Topics.names(prefix));
        return names.stream().filter(n -> contract.contains(n) || n.startsWith(applicationId + "-")).sorted()
                .toList();
    }

    /** Looks now and then every {@code interval} on a daemon thread of its own. */
    synchronized void start(Duration interval) {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "actiongate-hanging-transactions");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(() -> look(), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The hanging transactions found by the last look. */
    public int current() {
        return current;
    }

    /**
     * One look: logs each hanging transaction the first time it is seen, and keeps the number found. Returns those
     * logged by this look.
     */
    List<HangingTransactions.Hanging> look() {
        List<HangingTransactions.Hanging> found;
        List<HangingTransactions.Hanging> logged = new ArrayList<>();
        try {
            found = finder.find(partitions.list());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return logged;
        } catch (Exception e) {
            LOG.warn("could not look for hanging transactions on the gate's partitions: {}", e.toString());
            return logged;
        }
        current = found.size();
        reported.retainAll(found.stream().map(HangingTransactionWatch::identity).toList());
        for (HangingTransactions.Hanging h : found) {
            if (reported.add(identity(h))) {
                logged.add(h);
                LOG.error("hanging transaction: {}. Readers of the partition stop at it (a gate task restoring it "
                        + "never finishes). The coordinator will write no marker; an operator must decide between "
                        + "commit and abort (docs/operating.md, \"Hanging transactions\"), e.g. "
                        + "kafka-transactions.sh abort --topic {} --partition {} --start-offset {}", h.describe(),
                        h.partition().topic(), h.partition().partition(), h.startOffset());
            }
        }
        return logged;
    }

    private static String identity(HangingTransactions.Hanging h) {
        return h.partition() + "/" + h.producerId() + "/" + h.producerEpoch() + "/" + h.startOffset();
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        try {
            resources.close();
        } catch (Exception e) {
            LOG.debug("closing the hanging-transaction watch", e);
        }
    }
}
