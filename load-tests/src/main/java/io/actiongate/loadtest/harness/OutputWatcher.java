package io.actiongate.loadtest.harness;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads an output topic (read_committed, from its end at start) on its own thread and notes, per expected key,
 * the {@link System#nanoTime()} of its first record that {@code done} accepts.
 */
public final class OutputWatcher implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;
    private final Map<String, Integer> index = new HashMap<>();
    private final AtomicLongArray doneAt;
    private final CountDownLatch remaining;
    private final Predicate<byte[]> done;
    private final Thread thread;
    private volatile boolean running = true;

    private OutputWatcher(String bootstrap, String topic, List<String> keys, Predicate<byte[]> done) {
        for (int i = 0; i < keys.size(); i++) {
            index.put(keys.get(i), i);
        }
        this.doneAt = new AtomicLongArray(keys.size());
        this.remaining = new CountDownLatch(keys.size());
        this.done = done;
        this.consumer = committedReader(bootstrap, topic, true, Map.of());
        this.thread = new Thread(this::loop, "bench-watch-" + topic);
        this.thread.setDaemon(true);
    }

    /**
     * A {@code read_committed} consumer of every partition of {@code topic} (no group), positioned at the topic's
     * end, pinned before it returns so that nothing sent afterwards is missed, or at its beginning; {@code overrides}
     * go over these settings.
     */
    public static KafkaConsumer<String, byte[]> committedReader(String bootstrap, String topic, boolean fromEnd,
                                                         Map<String, ?> overrides) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.putAll(overrides);
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
        consumer.assign(partitions);
        if (fromEnd) {
            consumer.seekToEnd(partitions);
            partitions.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30)));
        } else {
            consumer.seekToBeginning(partitions);
        }
        return consumer;
    }

    public static OutputWatcher start(String bootstrap, String topic, List<String> keys, Predicate<byte[]> done) {
        OutputWatcher w = new OutputWatcher(bootstrap, topic, keys, done);
        w.thread.start();
        return w;
    }

    private void loop() {
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    Integer i = index.get(r.key());
                    if (i != null && doneAt.get(i) == 0 && done.test(r.value()) && doneAt.compareAndSet(i, 0, now)) {
                        remaining.countDown();
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    /** Waits until every key is done or {@code timeout} passes. */
    public void awaitAll(Duration timeout) throws InterruptedException {
        remaining.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** How many keys are done so far. */
    public int completed() {
        return (int) (doneAt.length() - remaining.getCount());
    }

    /** Per key in the order given at start: the nanoTime it was done, 0 when it was not. */
    public long[] doneAt() {
        long[] out = new long[doneAt.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = doneAt.get(i);
        }
        return out;
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
