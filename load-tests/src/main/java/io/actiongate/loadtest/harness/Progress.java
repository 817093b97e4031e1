package io.actiongate.loadtest.harness;

import java.io.PrintStream;
import java.util.Locale;

/**
 * What the benchmark is doing, for the person watching, on stderr (the report goes to stdout). {@link Mode#BAR}
 * redraws one bar per task in place (percentage, count, rate, time left), for a terminal or when forced with
 * {@code --progress}; {@link Mode#LINES} prints one line per finished task (stderr redirected to a file or a CI
 * log); {@link Mode#OFF} prints nothing (tests, {@code --no-progress}).
 */
public class Progress {

    /** How progress is shown. */
    public enum Mode { OFF, LINES, BAR }

    private static final long REDRAW_NANOS = 100_000_000L;
    private static final long TICK_MILLIS = 500;
    private static final int BAR_WIDTH = 30;

    private final PrintStream err;
    private final Mode mode;

    public Progress(PrintStream err, Mode mode) {
        this.err = err;
        this.mode = mode;
    }

    /** Enabled: a bar when stderr is a terminal, else one line per task. */
    public Progress(PrintStream err, boolean enabled) {
        this(err, mode(enabled, false));
    }

    public static Progress off() {
        return new Progress(System.err, Mode.OFF);
    }

    /** The mode for the options: off when disabled, a bar when forced or on a terminal, else lines. */
    public static Mode mode(boolean enabled, boolean forceBar) {
        if (!enabled) {
            return Mode.OFF;
        }
        return forceBar || System.console() != null ? Mode.BAR : Mode.LINES;
    }

    public Mode mode() {
        return mode;
    }

    /** Starts a task of {@code total} units (0 when unknown). */
    public Task start(String label, long total) {
        return new Task(label, total);
    }

    /**
     * One bar: {@code label [#####-----] 52.3% 1,046/2,000 162/s ETA 6s}; without a total, the count, the rate and
     * the time so far.
     */
    public static String bar(String label, long done, long total, double seconds) {
        double rate = seconds > 0 ? done / seconds : 0;
        if (total <= 0 && done == 0) {
            return String.format(Locale.ROOT, "%-28s running  %s", label, duration(seconds));
        }
        if (total <= 0) {
            return String.format(Locale.ROOT, "%-28s %,d  %s  %s", label, done, rate(rate), duration(seconds));
        }
        double fraction = Math.max(0, Math.min(1, (double) done / total));
        int filled = (int) Math.round(fraction * BAR_WIDTH);
        String eta = done >= total ? "done" : rate > 0 ? "ETA " + duration((total - done) / rate) : "ETA ?";
        return String.format(Locale.ROOT, "%-28s [%s%s] %5.1f%%  %,d/%,d  %s  %s", label, "#".repeat(filled),
                "-".repeat(BAR_WIDTH - filled), 100 * fraction, done, total, rate(rate), eta);
    }

    private static String rate(double perSecond) {
        return String.format(Locale.ROOT, perSecond >= 100 ? "%,.0f/s" : "%.1f/s", perSecond);
    }

    public static String duration(double seconds) {
        long s = Math.round(seconds);
        return s < 60 ? s + "s" : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }

    /** One running task; {@link #close} ends it. */
    public final class Task implements AutoCloseable {
        private final String label;
        private final long total;
        private final long startNanos = System.nanoTime();
        private final Thread ticker;
        private long done;
        private long drawnAt;
        private boolean closed;

        private Task(String label, long total) {
            this.label = label;
            this.total = total;
            if (mode == Mode.BAR) {
                draw(true);
                // keeps the elapsed time and the rate moving while nothing advances (e.g. a long round)
                ticker = new Thread(this::tick, "bench-progress");
                ticker.setDaemon(true);
                ticker.start();
            } else {
                ticker = null;
            }
        }

        public synchronized void advance(long units) {
            done += units;
            draw(false);
        }

        public synchronized void set(long units) {
            done = units;
            draw(false);
        }

        private void tick() {
            try {
                while (true) {
                    Thread.sleep(TICK_MILLIS);
                    synchronized (this) {
                        if (closed) {
                            return;
                        }
                        draw(true);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private double seconds() {
            return (System.nanoTime() - startNanos) / 1e9;
        }

        private void draw(boolean force) {
            if (mode != Mode.BAR) {
                return;
            }
            long now = System.nanoTime();
            if (!force && now - drawnAt < REDRAW_NANOS) {
                return;
            }
            drawnAt = now;
            err.print("\r" + bar(label, done, total, seconds()) + "   ");
            err.flush();
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                if (mode == Mode.BAR) {
                    draw(true);
                    err.println();
                } else if (mode == Mode.LINES) {
                    double s = seconds();
                    err.printf(Locale.ROOT, "%s: %s in %s%n", label, total > 0 ? String.format(Locale.ROOT,
                            "%,d/%,d", done, total) : done > 0 ? String.format(Locale.ROOT, "%,d", done) : "done",
                            duration(s));
                }
            }
            if (ticker != null) {
                ticker.interrupt();
            }
        }
    }
}
