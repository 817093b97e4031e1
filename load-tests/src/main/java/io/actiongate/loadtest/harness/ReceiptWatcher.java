package io.actiongate.loadtest.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.topics.Topics;

/**
 * Reads the receipts topic (read_committed, from its end at start) on its own thread and keeps, per expected key,
 * the {@link System#nanoTime()} of its first {@code SUCCEEDED} and first {@code WAITING_APPROVAL} receipt, how many
 * {@code APPROVED} receipts it got and the decision ids on them, and the decision id of its {@code SUCCEEDED}
 * receipt. An optional listener sees every receipt of an expected key as it arrives (the simulated approver of the
 * approval part). Unlike {@link OutputWatcher} a caller can wait for one key, which the one-at-a-time row needs.
 */
public final class ReceiptWatcher implements AutoCloseable {

    /** What one key's receipts showed: written by the watcher's thread, read by the parts once it is done. */
    public static final class Track {
        public long succeededAt;
        public long waitingAt;
        public int approved;
        public final List<String> approvedDecisionIds = new ArrayList<>();
        public String succeededDecisionId;
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final Map<String, Integer> index = new HashMap<>();
    private final Track[] tracks;
    private final BiConsumer<Integer, Receipt> listener;
    private final Thread thread;
    private final Object lock = new Object();
    private int succeeded;
    private volatile boolean running = true;
    private volatile Throwable failure;

    private ReceiptWatcher(String bootstrap, String topic, List<String> keys, BiConsumer<Integer, Receipt> listener) {
        for (int i = 0; i < keys.size(); i++) {
            index.put(keys.get(i), i);
        }
        this.tracks = new Track[keys.size()];
        for (int i = 0; i < tracks.length; i++) {
            tracks[i] = new Track();
        }
        this.listener = listener;
        this.consumer = OutputWatcher.committedReader(bootstrap, topic, true, Map.of());
        this.thread = new Thread(this::loop, "bench-receipts-" + topic);
        this.thread.setDaemon(true);
    }

    /** Watches {@code topic} (a receipts topic) for {@code keys}; {@code listener} may be null. */
    public static ReceiptWatcher start(String bootstrap, String topic, List<String> keys,
                                BiConsumer<Integer, Receipt> listener) {
        ReceiptWatcher w = new ReceiptWatcher(bootstrap, topic, keys, listener);
        w.thread.start();
        return w;
    }

    private void loop() {
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    Integer i = index.get(r.key());
                    if (i == null) {
                        continue;
                    }
                    Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(r.topic(), r.value());
                    note(i, receipt, now);
                    if (listener != null) {
                        listener.accept(i, receipt);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException | Error e) {
            failure = e;
            synchronized (lock) {
                lock.notifyAll();
            }
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private void note(int i, Receipt receipt, long now) {
        synchronized (lock) {
            Track t = tracks[i];
            ReceiptStatus status = receipt.getStatus();
            if (status == ReceiptStatus.WAITING_APPROVAL && t.waitingAt == 0) {
                t.waitingAt = now;
            } else if (status == ReceiptStatus.DISPATCHING && receipt.getDecisionId() != null) {
                // the receipt an approval answers (one receipt per input, no APPROVED on the way)
                t.approved++;
                t.approvedDecisionIds.add(receipt.getDecisionId());
            } else if (status == ReceiptStatus.SUCCEEDED && t.succeededAt == 0) {
                t.succeededAt = now;
                t.succeededDecisionId = receipt.getDecisionId();
                succeeded++;
                lock.notifyAll();
            }
        }
    }

    /** Waits until key {@code i} has its SUCCEEDED receipt or {@code timeout} passes; true when it has. */
    public boolean awaitSucceeded(int i, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (tracks[i].succeededAt == 0 && failure == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return tracks[i].succeededAt != 0;
        }
    }

    /** Waits until every key has its SUCCEEDED receipt or {@code timeout} passes; true when all have. */
    public boolean awaitAllSucceeded(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (succeeded < tracks.length && failure == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return succeeded == tracks.length;
        }
    }

    /** Keys with their SUCCEEDED receipt so far. */
    public int succeeded() {
        synchronized (lock) {
            return succeeded;
        }
    }

    /** Per key in the order given at start: the nanoTime of its SUCCEEDED receipt, 0 when none came. */
    public long[] succeededAt() {
        synchronized (lock) {
            long[] out = new long[tracks.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = tracks[i].succeededAt;
            }
            return out;
        }
    }

    /** A copy of key {@code i}'s track. */
    public Track track(int i) {
        synchronized (lock) {
            Track t = tracks[i];
            Track copy = new Track();
            copy.succeededAt = t.succeededAt;
            copy.waitingAt = t.waitingAt;
            copy.approved = t.approved;
            copy.approvedDecisionIds.addAll(t.approvedDecisionIds);
            copy.succeededDecisionId = t.succeededDecisionId;
            return copy;
        }
    }

    /** Why the watching thread stopped early, if it did. */
    public java.util.Optional<Throwable> failure() {
        return java.util.Optional.ofNullable(failure);
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
