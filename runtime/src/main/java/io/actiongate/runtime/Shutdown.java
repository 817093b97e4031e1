package io.actiongate.runtime;

import java.util.ArrayDeque;
import java.util.Deque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one shutdown sequence of every role and process: what started is pushed in order and closed in reverse, each
 * close attempted even when an earlier one failed (logged, never thrown). Thread-safe.
 */
public final class Shutdown implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

    private final String what;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();

    /** @param what what is being stopped, for the log ("the approval service") */
    public Shutdown(String what) {
        this.what = what;
    }

    /** Registers {@code closeable} to be closed before everything registered earlier; returns it. */
    public synchronized <T extends AutoCloseable> T push(T closeable) {
        started.push(closeable);
        return closeable;
    }

    /** Closes everything registered, latest first. */
    @Override
    public void close() {
        while (true) {
            AutoCloseable next;
            synchronized (this) {
                next = started.poll();
            }
            if (next == null) {
                return;
            }
            try {
                next.close();
            } catch (Exception e) {
                LOG.warn("error while stopping {}: {}", what, e.toString());
            }
        }
    }
}
