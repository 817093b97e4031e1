package io.actiongate.loadtest.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A timed steady window: keeps {@code window} actions in flight (produced, their output not yet seen),
 * generating records chunk by chunk on a thread of the load-generator group; once the window has turned over
 * once (untimed ramp), times {@code seconds} and counts the CPU of exactly that window ({@link CpuAccount}). Throughput is the actions completed inside the
 * window divided by its length; the actions still in flight when it ends are then awaited (untimed), so that
 * every action produced can be checked. Latency is per action, send to output, so it includes the queue of
 * {@code window} actions.
 */
public final class SteadyLoad {

    /** Actions per generated chunk. */
    public static final int CHUNK = 256;
    /** The longest untimed ramp before the window starts (one turnover of the window, or this). */
    public static final Duration RAMP_LIMIT = Duration.ofSeconds(30);

    /**
     * What the window measured: the side as {@link BrokerRuns.Side} (every action produced, ramp included, and the
     * window's throughput), its CPU, and every key produced.
     */
    public record Result(BrokerRuns.Side side, CpuAccount.Window cpu, List<String> keys, long completedInWindow) {
    }

    private SteadyLoad() {
    }

    /**
     * Runs the window: {@code chunks} gives chunk {@code i} of records (each key new), {@code done} accepts the
     * output that completes a key, {@code partition} (null: the producer's default) places each record;
     * {@code processes} are other processes whose CPU ticks the window counts (e.g. PostgreSQL).
     */
    public static Result run(String bootstrap, String in, String out, IntFunction<Workload.Encoded> chunks,
                      Predicate<byte[]> done, ToIntFunction<String> partition, int window, Duration seconds,
                      Map<String, LongSupplier> processes, Progress.Task task, long progressBase) throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread generator = new Thread(() -> {
            try {
                outcome.set(runHere(bootstrap, in, out, chunks, done, partition, window, seconds, processes, task,
                        progressBase));
            } catch (Exception | Error e) {
                outcome.set(e);
            }
        }, CpuAccount.LOAD_CLIENT_ID + "-generator");
        generator.start();
        generator.join();
        Object o = outcome.get();
        if (o instanceof Exception e) {
            throw e;
        }
        if (o instanceof Error e) {
            throw e;
        }
        return (Result) o;
    }

    private static Result runHere(String bootstrap, String in, String out, IntFunction<Workload.Encoded> chunks,
                                  Predicate<byte[]> done, ToIntFunction<String> partition, int window,
                                  Duration seconds, Map<String, LongSupplier> processes, Progress.Task task,
                                  long progressBase) throws Exception {
        List<String> keys = new ArrayList<>();
        List<Long> sentAt = new ArrayList<>();
        try (KeyWatcher watcher = KeyWatcher.start(bootstrap, out, done);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(bootstrap, CpuAccount.LOAD_CLIENT_ID)) {
            Workload.Encoded chunk = null;
            int inChunk = 0;
            int chunkNo = 0;
            // ramp (untimed): the window fills and turns over once, so the timed part starts in steady state
            CpuAccount.Probe probe = null;
            long start = 0;
            long end = Long.MAX_VALUE;
            long base = 0;
            long rampDeadline = System.nanoTime() + RAMP_LIMIT.toNanos();
            long lastProgress = System.nanoTime();
            while (System.nanoTime() < end) {
                if (probe == null && (watcher.completed() >= window || System.nanoTime() > rampDeadline)) {
                    base = watcher.completed();
                    probe = CpuAccount.start(processes);
                    start = System.nanoTime();
                    end = start + seconds.toNanos();
                }
                if (keys.size() - watcher.completed() >= window) {
                    watcher.awaitChange(Duration.ofMillis(2));
                } else {
                    if (chunk == null || inChunk == chunk.size()) {
                        chunk = chunks.apply(chunkNo++);
                        inChunk = 0;
                    }
                    String key = chunk.keys().get(inChunk);
                    byte[] value = chunk.values().get(inChunk++);
                    watcher.expect(key, keys.size());
                    keys.add(key);
                    sentAt.add(System.nanoTime());
                    producer.send(partition == null ? new ProducerRecord<>(in, key, value)
                            : new ProducerRecord<>(in, partition.applyAsInt(key), key, value));
                }
                long now = System.nanoTime();
                if (task != null && now - lastProgress > 200_000_000L) {
                    task.set(progressBase + watcher.completed());
                    lastProgress = now;
                }
            }
            long stopped = System.nanoTime();
            long inWindow = watcher.completed() - base;
            CpuAccount.Window cpu = probe.stop(inWindow);
            producer.flush();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).plusMillis(20L * window).toNanos();
            while (watcher.completed() < keys.size() && System.nanoTime() < deadline) {
                watcher.awaitChange(Duration.ofMillis(200));
            }
            long[] doneAt = watcher.doneAt(keys.size());
            List<Long> latencies = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                if (doneAt[i] != 0) {
                    latencies.add(doneAt[i] - sentAt.get(i));
                }
            }
            long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            double throughput = inWindow * 1e9 / (stopped - start);
            return new Result(new BrokerRuns.Side(keys.size(), sorted.length, throughput, sorted), cpu,
                    List.copyOf(keys), inWindow);
        }
    }

    /**
     * {@link OutputWatcher} for keys announced as they are produced: notes per key the first output {@code done}
     * accepts.
     */
    public static final class KeyWatcher implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final Map<String, Integer> index = new ConcurrentHashMap<>();
        private final Map<Integer, Long> doneAt = new ConcurrentHashMap<>();
        private final AtomicInteger completed = new AtomicInteger();
        private final Predicate<byte[]> done;
        private final Thread thread;
        private final Object changed = new Object();
        private volatile boolean running = true;

        private KeyWatcher(String bootstrap, String topic, Predicate<byte[]> done) {
            this.done = done;
            this.consumer = OutputWatcher.committedReader(bootstrap, topic, true, Map.of());
            this.thread = new Thread(this::loop, CpuAccount.WATCHER_PREFIX + "-" + topic);
            this.thread.setDaemon(true);
        }

        public static KeyWatcher start(String bootstrap, String topic, Predicate<byte[]> done) {
            KeyWatcher w = new KeyWatcher(bootstrap, topic, done);
            w.thread.start();
            return w;
        }

        /** Announces key number {@code i}, before it is produced. */
        public void expect(String key, int i) {
            index.put(key, i);
        }

        private void markDone(int i, long now) {
            if (doneAt.putIfAbsent(i, now) == null) {
                completed.incrementAndGet();
                synchronized (changed) {
                    changed.notifyAll();
                }
            }
        }

        private void loop() {
            try {
                while (running) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                        long now = System.nanoTime();
                        if (!done.test(r.value())) {
                            continue;
                        }
                        Integer i = index.get(r.key());
                        if (i != null) {
                            markDone(i, now);
                        }
                    }
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
            }
        }

        public int completed() {
            return completed.get();
        }

        public void awaitChange(Duration max) throws InterruptedException {
            synchronized (changed) {
                changed.wait(Math.max(1, max.toMillis()));
            }
        }

        public long[] doneAt(int n) {
            long[] out = new long[n];
            doneAt.forEach((i, t) -> {
                if (i < n) {
                    out[i] = t;
                }
            });
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
}
