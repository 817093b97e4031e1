package io.actiongate.polling;

import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that drives one consumer's poll loop for a role (executor, reconciler): subscribe, poll until closed,
 * then release the role's clients. A failure that ends the loop on its own is kept for {@link #failure()} so the
 * process can exit; {@link #close()} wakes the consumer and waits for the thread.
 */
public final class PollThread implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PollThread.class);

    /** One role's loop. */
    public interface Loop {
        void subscribe();

        void pollOnce();
    }

    private final String role;
    private final Consumer<?, ?> consumer;
    private final Loop loop;
    private final Runnable release;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closing;

    /**
     * @param role     for the thread's name and the logs, e.g. {@code executor}
     * @param consumer the loop's consumer, woken up by {@link #close()}
     * @param release  runs on the poll thread once the loop ends, whatever the reason: close the clients
     */
    public PollThread(String role, Consumer<?, ?> consumer, Loop loop, Runnable release) {
        this.role = role;
        this.consumer = consumer;
        this.loop = loop;
        this.release = release;
        this.thread = new Thread(this::run, "actiongate-" + role + "-poll");
    }

    public void start() {
        thread.start();
    }

    private void run() {
        try {
            loop.subscribe();
            while (!closing) {
                loop.pollOnce();
            }
        } catch (WakeupException e) {
            if (!closing) {
                failure.set(e);
                LOG.error("{} poll loop woken up unexpectedly", role, e);
            }
        } catch (RuntimeException | Error e) {
            failure.set(e);
            LOG.error("{} poll loop stopped: {}", role, e.getClass().getSimpleName(), e);
        } finally {
            release.run();
        }
    }

    /** True while the poll loop runs and nobody asked it to stop. */
    public boolean isRunning() {
        return thread.isAlive() && !closing;
    }

    /** Why the poll loop stopped on its own, if it did. */
    public Throwable failure() {
        return failure.get();
    }

    @Override
    public void close() {
        closing = true;
        consumer.wakeup();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
