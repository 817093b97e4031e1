package io.actiongate.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows every partition of some topics from the beginning with a group-less consumer, on a daemon thread of its
 * own: each record goes to {@code apply} in partition order; the follower is <em>caught up</em> once its positions
 * reached the end offsets it saw at start; and a writer of one of those partitions can wait until its own record has
 * been applied ({@link #awaitApplied}). What a role that rebuilds a view of compacted topics in every instance needs
 * (the notifier's waiting actions and its ledger, the approval service's book): no offsets, no group, every instance
 * the same view.
 *
 * <p>A topic that does not exist stops the follower with {@code topic X does not exist (run 'topics create')}; any
 * other failure stops it too and is kept in {@link #failure()}. It closes the consumer when it stops.
 */
public final class TopicFollower implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TopicFollower.class);
    private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
    private final List<String> topics;
    /** The partitions to follow when given (a topic just created may not be in the metadata yet), else null. */
    private final List<TopicPartition> given;
    private final Consumer<ConsumerRecord<String, byte[]>> apply;
    private final Runnable onCaughtUp;
    private final Duration poll;
    /**
     * How long one poll waits once caught up: a poll returns as soon as a record arrives, and nothing else is left
     * to do between records, so a longer poll only wakes an idle follower less often. Before it is caught up the
     * follower polls for {@code poll}, since reaching the end offsets it saw may take a fetch that brings no record
     * (a transaction marker at the end of a partition), which ends a poll only at its time.
     */
    public static final Duration CAUGHT_UP_POLL = Duration.ofSeconds(5);
    private final Thread thread;
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private final Object appliedLock = new Object();
    /** The next offset to apply of each partition (its position after the last poll applied). */
    private final Map<TopicPartition, Long> applied = new HashMap<>();
    private volatile boolean running = true;
    private volatile Throwable failure;
    /** {@link #paced}: the wait after a poll that brought records, once caught up; zero: none. */
    private Duration spacing = Duration.ZERO;
    /** Ends a {@link #paced} wait when the follower closes. */
    private final CountDownLatch closing = new CountDownLatch(1);

    /**
     * @param onCaughtUp run once on the follower's thread when it has caught up (a log line, say)
     * @param poll       how long one poll waits for records
     */
    public TopicFollower(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, List<String> topics,
                         Consumer<ConsumerRecord<String, byte[]>> apply, Runnable onCaughtUp, Duration poll,
                         String threadName) {
        this(consumer, topics, null, apply, onCaughtUp, poll, threadName);
    }

    /**
     * A follower of exactly {@code partitions}, never looked up: for a role's own topic that it has just created,
     * whose partitions it knows and which the cluster's metadata may not show yet.
     */
    public static TopicFollower ofPartitions(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer,
                                             List<TopicPartition> partitions,
                                             Consumer<ConsumerRecord<String, byte[]>> apply, Runnable onCaughtUp,
                                             Duration poll, String threadName) {
        return new TopicFollower(consumer, List.of(), List.copyOf(partitions), apply, onCaughtUp, poll, threadName);
    }

    private TopicFollower(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, List<String> topics,
                          List<TopicPartition> given, Consumer<ConsumerRecord<String, byte[]>> apply,
                          Runnable onCaughtUp, Duration poll, String threadName) {
        this.consumer = consumer;
        this.topics = List.copyOf(topics);
        this.given = given;
        this.apply = apply;
        this.onCaughtUp = onCaughtUp;
        this.poll = poll;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /**
     * Once caught up, after a poll that brought records, waits {@code spacing} before it reads on, then reads what came
     * meanwhile: first, with polls that do not wait, what its consumer holds already (among it the answer to the fetch
     * sent when the last poll returned, which the broker answered with the first records that came after), then, with
     * the next poll, the answer to the fetch the last of those sent, which the broker gives at once with the rest. So
     * a follower of busy topics fetches two or three times per {@code spacing}, however much is written, and applies a
     * record about {@code spacing} after it was written at most, while an idle one waits in one held fetch (a {@link
     * KafkaClients.ConsumerSpec#follower() follower}'s) and applies the next record as soon as it arrives. For a feed
     * that need not see every record at once (a view for people), instead of a fetch minimum with a short maximum
     * wait, which fetches at every expiry of that wait while nothing happens. Call before {@link #start}.
     */
    public TopicFollower paced(Duration spacing) {
        this.spacing = spacing;
        return this;
    }

    public TopicFollower start() {
        thread.start();
        return this;
    }

    /** Whether the follower has read up to the end offsets it saw when it started. */
    public boolean caughtUp() {
        return caughtUp.getCount() == 0;
    }

    public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isRunning() {
        return running && failure == null && thread.isAlive();
    }

    /** Why the follower stopped on its own, or null. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Waits until the record at {@code offset} of {@code partition} has been applied; false when {@code timeout}
     * passed first or the follower stopped.
     */
    public boolean awaitApplied(TopicPartition partition, long offset, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (appliedLock) {
            while (applied.getOrDefault(partition, 0L) <= offset) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !isRunning()) {
                    return false;
                }
                appliedLock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            return true;
        }
    }

    /**
     * What a writer does after its own write at {@code offset}: waits until the follower has applied it, else throws
     * what {@code failure} makes of why (the interrupt kept when interrupted), so that the writer never decides on a
     * view without its write.
     */
    public void requireApplied(TopicPartition partition, long offset, Duration timeout,
                               Function<String, ? extends RuntimeException> failure) {
        try {
            if (!awaitApplied(partition, offset, timeout)) {
                throw failure.apply("the state reader did not reach its own write");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure.apply("interrupted");
        }
    }

    private void run() {
        try {
            List<TopicPartition> partitions = new ArrayList<>(given == null ? List.of() : given);
            for (String topic : topics) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
                if (infos == null || infos.isEmpty()) {
                    throw new IllegalStateException("topic " + topic + " does not exist (run 'topics create')");
                }
                infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> target = new HashMap<>(consumer.endOffsets(partitions));
            while (running) {
                boolean paced = caughtUp() && spacing.compareTo(Duration.ZERO) > 0;
                int polled = pollOnce(caughtUp() ? max(poll, CAUGHT_UP_POLL) : poll, partitions, target);
                if (paced && polled > 0 && !closing.await(spacing.toMillis(), TimeUnit.MILLISECONDS)) {
                    // what came meanwhile and is in already; the next poll waits for the fetch the last of these sent
                    while (running && pollOnce(Duration.ZERO, partitions, target) > 0) {
                        // applied
                    }
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (running) {
                failure = e;
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("{} stopped: {}", thread.getName(), e.toString());
        } finally {
            synchronized (appliedLock) {
                appliedLock.notifyAll();
            }
            consumer.close(KafkaClients.ConsumerSpec.FOLLOWER_CLOSE);
        }
    }

    /** One poll: applies what it brought, moves {@link #applied} on and notes being caught up; its record count. */
    private int pollOnce(Duration timeout, List<TopicPartition> partitions, Map<TopicPartition, Long> target) {
        ConsumerRecords<String, byte[]> records = consumer.poll(timeout);
        for (ConsumerRecord<String, byte[]> r : records) {
            apply.accept(r);
        }
        synchronized (appliedLock) {
            partitions.forEach(p -> applied.put(p, consumer.position(p)));
            appliedLock.notifyAll();
        }
        if (caughtUp.getCount() > 0) {
            target.entrySet().removeIf(t -> consumer.position(t.getKey()) >= t.getValue());
            if (target.isEmpty()) {
                onCaughtUp.run(); // before the latch: whoever waited for it finds its effect
                caughtUp.countDown();
            }
        }
        return records.count();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public void close() {
        running = false;
        closing.countDown();
        consumer.wakeup();
        if (thread.isAlive()) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (thread.getState() == Thread.State.NEW) {
            // never started: nobody else closes the consumer
            consumer.close(KafkaClients.ConsumerSpec.FOLLOWER_CLOSE);
        }
    }
}
