package io.actiongate.http;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers that come later: a proposal waiting for its first receipt, a long poll waiting for a state. They hold no
 * request thread of the HTTP server while they wait (the exchange stays open and is answered from here), and at most
 * {@code maxWaiters} wait at once, so slow receipts or many long polls cannot take the server's workers (these routes are outside the runtime's
 * turn limit: this is their bound).
 */
final class AsyncAnswers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AsyncAnswers.class);

    /** Writes one answer; may throw when the client went away. */
    @FunctionalInterface
    interface Answer {
        void write() throws IOException;
    }

    private final Semaphore slots;
    private final ScheduledExecutorService timer;
    private final ExecutorService writers;

    AsyncAnswers(int maxWaiters) {
        this.slots = new Semaphore(maxWaiters);
        ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(1, daemon("actiongate-http-wait"));
        scheduled.setRemoveOnCancelPolicy(true);
        this.timer = scheduled;
        this.writers = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemon("actiongate-http-answer"));
    }

    /** Takes a waiting slot; false when {@code maxWaiters} already wait (answer 503 then). */
    boolean acquire() {
        return slots.tryAcquire();
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    /** Writes {@code answer} on a writer thread, closes the exchange and frees the slot taken by {@link #acquire}. */
    void finish(HttpCall exchange, Answer answer) {
        try {
            writers.execute(() -> {
                try (exchange) {
                    answer.write();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("answer not delivered: {}", e.toString());
                } finally {
                    slots.release();
                }
            });
        } catch (RuntimeException rejected) {
            // shutting down
            exchange.close();
            slots.release();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        writers.shutdown();
        try {
            if (!writers.awaitTermination(2, TimeUnit.SECONDS)) {
                writers.shutdownNow();
            }
        } catch (InterruptedException e) {
            writers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
