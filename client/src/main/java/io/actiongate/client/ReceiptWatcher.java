package io.actiongate.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.topics.Topics;

/**
 * The one receipts consumer of a client: a thread that reads {@code receipts} and {@code conflicts} (read_committed,
 * no consumer group, every partition assigned, starting at the end) and completes the waiters registered for an
 * action key. Positions are fixed before the constructor returns, so a proposal published afterwards never misses
 * its receipts (the gate re-publishes the latest receipt when a proposal is redelivered).
 */
final class ReceiptWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReceiptWatcher.class);
    private static final Duration POLL = Duration.ofMillis(200);
    /**
     * How long the poll thread waits for a waiter while paused before it lets the consumer do its housekeeping (a
     * poll that returns at once: metadata, connections). It does not wait inside {@code poll}: a consumer with every
     * partition paused has no request in flight, and Kafka's consumer then wakes every {@code retry.backoff.ms}
     * (100 ms) inside a long poll, ten times a second for nothing.
     */
    static final Duration PAUSED_WAIT = Duration.ofSeconds(5);

    /**
     * A handle's wait: which frozen action it offered (its action digest; org, input digest and tool for a refusal
     * that names no action digest) and when it is satisfied.
     */
    static final class Waiter {
        final String actionDigest;
        final String inputDigest;
        final String orgId;
        /** {@code provider:tool_name:operation}, as the gate names the tool in an {@code IdentityConflict}. */
        final String tool;
        final Until until;
        final CompletableFuture<ActionReceipt> result = new CompletableFuture<>();

        Waiter(String actionDigest, String inputDigest, String orgId, String tool, Until until) {
            this.actionDigest = actionDigest;
            this.inputDigest = inputDigest;
            this.orgId = orgId;
            this.tool = tool;
            this.until = until;
        }
    }

    private final Consumer<String, byte[]> consumer;
    private final String receiptsTopic;
    private final String conflictsTopic;
    private final Map<String, List<Waiter>> waiting = new ConcurrentHashMap<>();
    private final Map<String, ActionReceipt> latest = new ConcurrentHashMap<>();
    /** Listeners of {@link #listen}, by action key. */
    private final Map<String, List<java.util.function.Consumer<ActionReceipt>>> listeners = new ConcurrentHashMap<>();
    private final Thread thread;
    private final List<TopicPartition> partitions;
    private volatile boolean running = true;
    private volatile Throwable failure;
    /**
     * The partitions are paused because nobody waits: the consumer then fetches nothing, instead of once per commit
     * of the gate. Set before the poll thread looks for waiters once more, so that a waiter registered meanwhile
     * either is seen by that look or sees this and wakes the thread (a paused consumer keeps its positions: nothing
     * published while paused is skipped).
     */
    private volatile boolean paused;
    /** A permit for each waiter or listener that arrived, or a close, while paused: the parked poll thread goes on. */
    private final Semaphore arrivals = new Semaphore(0);
    private final Duration pausedWait;

    ReceiptWatcher(Consumer<String, byte[]> consumer, String prefix, Duration startTimeout) {
        this(consumer, prefix, startTimeout, PAUSED_WAIT);
    }

    ReceiptWatcher(Consumer<String, byte[]> consumer, String prefix, Duration startTimeout, Duration pausedWait) {
        this.consumer = consumer;
        this.pausedWait = pausedWait;
        this.receiptsTopic = Topics.RECEIPTS.name(prefix);
        this.conflictsTopic = Topics.CONFLICTS.name(prefix);
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(receiptsTopic, conflictsTopic)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, startTimeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist; create the topics first");
            }
            infos.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
        }
        this.partitions = List.copyOf(partitions);
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        // resolve the end offsets now: anything published after this constructor returns is read
        partitions.forEach(tp -> consumer.position(tp, startTimeout));
        thread = new Thread(this::run, "actiongate-client-receipts");
        thread.setDaemon(true);
        thread.start();
    }

    /** Registers a wait for {@code actionKey}; call before publishing the proposal. */
    Waiter register(String actionKey, String actionDigest, String inputDigest, String orgId, String tool,
                    Until until) {
        Waiter w = new Waiter(actionDigest, inputDigest, orgId, tool, until);
        if (failure != null) {
            w.result.completeExceptionally(new IllegalStateException("the receipts consumer stopped", failure));
            return w;
        }
        // add and remove inside the map's atomic compute: a waiter never lands in a list just dropped
        waiting.compute(actionKey, (k, list) -> {
            List<Waiter> waiters = list == null ? new CopyOnWriteArrayList<>() : list;
            waiters.add(w);
            return waiters;
        });
        w.result.whenComplete((r, e) -> waiting.computeIfPresent(actionKey, (k, list) -> {
            list.remove(w);
            if (list.isEmpty()) {
                latest.remove(k); // the client keeps no state for keys nobody waits on
                return null;
            }
            return list;
        }));
        wakeIfPaused();
        return w;
    }

    /** Calls {@code listener} with every receipt of {@code actionKey} read from now on, until closed. */
    AutoCloseable listen(String actionKey, java.util.function.Consumer<ActionReceipt> listener) {
        listeners.compute(actionKey, (k, list) -> {
            List<java.util.function.Consumer<ActionReceipt>> all = list == null ? new CopyOnWriteArrayList<>() : list;
            all.add(listener);
            return all;
        });
        wakeIfPaused();
        return () -> listeners.computeIfPresent(actionKey, (k, list) -> {
            list.remove(listener);
            return list.isEmpty() ? null : list;
        });
    }

    /** The latest receipt this client saw for a key some handle still waits on, if any. */
    ActionReceipt latest(String actionKey) {
        return latest.get(actionKey);
    }

    /** A waiter arrived: a poll thread that paused because nobody waited resumes at once. */
    private void wakeIfPaused() {
        if (paused) {
            arrivals.release();
        }
    }

    private boolean anyoneWaits() {
        return !waiting.isEmpty() || !listeners.isEmpty();
    }

    /** Pauses the partitions while nobody waits and resumes them when somebody does (poll thread only). */
    private void pauseWhileNobodyWaits() {
        if (!paused && !anyoneWaits()) {
            consumer.pause(partitions);
            paused = true;
        }
        if (paused && anyoneWaits()) {
            consumer.resume(partitions);
            paused = false;
        }
    }

    private void run() {
        try {
            while (running) {
                pauseWhileNobodyWaits();
                if (paused) {
                    if (!arrivals.tryAcquire(pausedWait.toMillis(), TimeUnit.MILLISECONDS)) {
                        consumer.poll(Duration.ZERO); // nobody came: the consumer's housekeeping, nothing fetched
                    }
                    arrivals.drainPermits();
                    continue;
                }
                ConsumerRecords<String, byte[]> polled = consumer.poll(POLL);
                for (ConsumerRecord<String, byte[]> r : polled) {
                    if (r.key() == null || r.value() == null
                            || !waiting.containsKey(r.key()) && !listeners.containsKey(r.key())) {
                        continue;
                    }
                    try {
                        if (r.topic().equals(receiptsTopic)) {
                            onReceipt(r.key(), Topics.RECEIPTS.valueSerde().deserializer().deserialize(r.topic(),
                                    r.value()));
                        } else {
                            onConflict(r.key(), Topics.CONFLICTS.valueSerde().deserializer().deserialize(r.topic(),
                                    r.value()));
                        }
                    } catch (AvroDecodeException e) {
                        LOG.warn("undecodable record on {} partition {} offset {}: {}", r.topic(), r.partition(),
                                r.offset(), e.getMessage());
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped(e);
        } catch (RuntimeException e) {
            stopped(e);
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private void stopped(Exception e) {
        failure = e;
        LOG.error("the receipts consumer stopped: {}", e.toString());
        waiting.values().forEach(list -> list.forEach(w -> w.result.completeExceptionally(
                new IllegalStateException("the receipts consumer stopped", e))));
    }

    private void onReceipt(String key, Receipt avro) {
        ActionReceipt receipt = new ActionReceipt(avro.getTaskId(), avro.getToolCallId(),
                ReceiptState.of(avro.getStatus()), avro.getReasonCode(), avro.getInputDigest(),
                avro.getActionDigest(), avro.getDecisionId(), avro.getProviderReceiptId(), avro.getAttempts().size(),
                avro.getUpdatedAt());
        for (java.util.function.Consumer<ActionReceipt> listener : listeners.getOrDefault(key, List.of())) {
            try {
                listener.accept(receipt);
            } catch (RuntimeException e) {
                LOG.warn("a receipt listener failed: {}", e.getClass().getName());
            }
        }
        String tool = avro.getProvider() + ":" + avro.getToolName() + ":" + avro.getOperation();
        for (Waiter w : waiting.getOrDefault(key, List.of())) {
            // a receipt of another action under this key (another org, principal or input) is not ours
            if (!ours(w, receipt, avro.getOrgId(), tool)) {
                continue;
            }
            latest.put(key, receipt);
            if (w.until.accepts(receipt.state())) {
                w.result.complete(receipt);
            }
        }
    }

    /**
     * Whether {@code receipt} answers {@code w}'s offer: its action digest is the offer's (the whole frozen action,
     * tenant included). A refusal that names no action digest (its input was refused before it was verified) is
     * the offer's when org, tool and input digest are.
     */
    static boolean ours(Waiter w, ActionReceipt receipt, String orgId, String tool) {
        if (receipt.actionDigest() != null) {
            return receipt.actionDigest().equals(w.actionDigest);
        }
        return receipt.state() == ReceiptState.REJECTED && w.orgId.equals(orgId) && w.tool.equals(tool)
                && w.inputDigest.equals(receipt.inputDigest());
    }

    private void onConflict(String key, IdentityConflict c) {
        for (Waiter w : waiting.getOrDefault(key, List.of())) {
            // the conflict names what was offered by its action digest: it is this waiter's offer when it is its own
            if (w.actionDigest.equals(c.getOfferedDigest()) && w.tool.equals(c.getOfferedTool())) {
                w.result.completeExceptionally(new IdentityConflictException(key, c.getExistingDigest(),
                        c.getOfferedDigest(), c.getExistingTool(), c.getOfferedTool()));
            }
        }
    }

    /** Whether the consumer is paused because nobody waits (tests). */
    boolean paused() {
        return paused;
    }

    boolean isRunning() {
        return thread.isAlive() && failure == null;
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        arrivals.release();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        waiting.values().forEach(list -> list.forEach(w -> w.result.completeExceptionally(
                new IllegalStateException("the client was closed"))));
    }
}
