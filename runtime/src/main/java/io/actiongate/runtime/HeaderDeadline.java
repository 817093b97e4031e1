package io.actiongate.runtime;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that has not delivered a complete request head within the deadline since it opened or since
 * its last response. Jetty's idle timeout alone does not bound a client that trickles one header byte every few
 * seconds; this does. Jetty reads request heads without a thread, so such clients never hold a worker; this bounds
 * how long they hold a connection slot. A connection busy with a request is not timed here (the body has its own
 * deadline).
 */
final class HeaderDeadline implements Connection.Listener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);
    private static final long BUSY = Long.MAX_VALUE;

    private final long timeoutNanos;
    private final LongSupplier nanoTime;
    private final Map<Connection, Long> deadlines = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    HeaderDeadline(String name, long timeoutMs) {
        this(name, timeoutMs, System::nanoTime);
    }

    HeaderDeadline(String name, long timeoutMs, LongSupplier nanoTime) {
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-deadline");
            t.setDaemon(true);
            return t;
        });
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.nanoTime = nanoTime;
        long period = Math.max(50, Math.min(1000, timeoutMs / 4));
        timer.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onOpened(Connection connection) {
        deadlines.put(connection, nanoTime.getAsLong() + timeoutNanos);
    }

    @Override
    public void onClosed(Connection connection) {
        deadlines.remove(connection);
    }

    /** A request head arrived on this connection: no header deadline while it is handled. */
    void requestStarted(Connection connection) {
        deadlines.computeIfPresent(connection, (c, d) -> BUSY);
    }

    /** Its response is done: the next request head (keep-alive) must arrive within the deadline again. */
    void requestEnded(Connection connection) {
        deadlines.computeIfPresent(connection, (c, d) -> nanoTime.getAsLong() + timeoutNanos);
    }

    int tracked() {
        return deadlines.size();
    }

    void sweep() {
        long now = nanoTime.getAsLong();
        for (Map.Entry<Connection, Long> e : deadlines.entrySet()) {
            if (e.getValue() != BUSY && now - e.getValue() > 0) {
                Connection c = e.getKey();
                deadlines.remove(c, e.getValue());
                LOG.debug("closing a connection from {} without a complete request head in time",
                        c.getEndPoint().getRemoteSocketAddress());
                c.getEndPoint().close();
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
