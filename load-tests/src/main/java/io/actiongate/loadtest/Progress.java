package io.actiongate.loadtest;

import java.io.PrintStream;
import java.util.Locale;

/**
 * What the benchmark is doing, for the person watching: one line per task on stderr, redrawn in place as the task
 * advances. Silent when disabled (tests, {@code --no-progress}).
 */
class Progress {

    private final PrintStream err;
    private final boolean enabled;

    Progress(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    static Progress off() {
        return new Progress(System.err, false);
    }

    /** Starts a task of {@code total} units (0 when unknown). */
    Task start(String label, long total) {
        return new Task(label, total);
    }

    /** One running task; {@link #done} ends its line. */
    final class Task implements AutoCloseable {
        private final String label;
        private final long total;
        private long done;
        private final long startNanos = System.nanoTime();

        private Task(String label, long total) {
            this.label = label;
            this.total = total;
            draw();
        }

        synchronized void advance(long units) {
            done += units;
            draw();
        }

        synchronized void set(long units) {
            done = units;
            draw();
        }

        private void draw() {
            if (!enabled) {
                return;
            }
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            if (total > 0) {
                err.printf(Locale.ROOT, "\r%-40s %6.1f%% %,d/%,d  %.0fs   ", label, 100.0 * done / total, done, total,
                        seconds);
            } else {
                err.printf(Locale.ROOT, "\r%-40s %,d  %.0fs   ", label, done, seconds);
            }
        }

        @Override
        public synchronized void close() {
            if (enabled) {
                draw();
                err.println();
            }
        }
    }
}
