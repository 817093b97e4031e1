package io.actiongate.connector.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one argument vector with {@link ProcessBuilder} (no shell): a cleared environment plus exactly the given
 * variables, stdin at end-of-file, stdout and stderr merged and kept up to a byte bound (the rest is read and
 * dropped so the child never blocks on a full pipe), and a timeout after which the process and its descendants are
 * killed.
 */
final class CommandRunner {

    /** How long a terminated child gets to exit before it is killed outright. */
    private static final Duration KILL_GRACE = Duration.ofSeconds(2);
    /** How long the output reader may lag behind the exit (a grandchild may still hold the pipe). */
    private static final Duration DRAIN_GRACE = Duration.ofSeconds(1);

    enum Ending {
        /** {@code start()} failed: the binary was never executed. */
        NOT_STARTED,
        /** The process exited by itself; {@code exitCode} is its status (128 + n when killed by signal n). */
        EXITED,
        /** Still running at the timeout; it was killed. */
        TIMED_OUT,
        /** The calling thread was interrupted while waiting; the process was killed. */
        INTERRUPTED
    }

    record Run(Ending ending, int exitCode, byte[] output, long outputBytes, String startFailure) {
    }

    private CommandRunner() {
    }

    static Run run(List<String> command, Map<String, String> environment, Path workingDir, Duration timeout,
                   int maxOutputBytes) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workingDir.toFile())
                .redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            return new Run(Ending.NOT_STARTED, -1, new byte[0], 0, e.getClass().getSimpleName());
        }
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the child may already have exited; its stdin is simply gone
        }
        BoundedSink sink = new BoundedSink(process.getInputStream(), maxOutputBytes);
        Thread reader = new Thread(sink, "cli-output");
        reader.setDaemon(true);
        reader.start();
        Ending ending;
        try {
            ending = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Ending.EXITED : Ending.TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ending = Ending.INTERRUPTED;
        }
        if (ending != Ending.EXITED) {
            kill(process);
        }
        awaitReader(reader, process);
        int exit = process.isAlive() ? -1 : process.exitValue();
        return new Run(ending, exit, sink.kept(), sink.total(), null);
    }

    /** Kills the descendants first (once the parent is gone they can no longer be found), then the process. */
    private static void kill(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        descendants.forEach(ProcessHandle::destroyForcibly);
        process.destroy();
        try {
            if (!process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
    }

    private static void awaitReader(Thread reader, Process process) {
        try {
            reader.join(DRAIN_GRACE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (reader.isAlive()) {
            try {
                process.getInputStream().close();
            } catch (IOException e) {
                // closing only unblocks the reader; nothing else depends on it
            }
        }
    }

    /** Reads everything, keeps the first {@code max} bytes. */
    private static final class BoundedSink implements Runnable {
        private final InputStream in;
        private final int max;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long total;

        BoundedSink(InputStream in, int max) {
            this.in = in;
            this.max = max;
        }

        @Override
        public void run() {
            byte[] buffer = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    synchronized (this) {
                        int room = max - kept.size();
                        if (room > 0) {
                            kept.write(buffer, 0, Math.min(room, n));
                        }
                        total += n;
                    }
                }
            } catch (IOException e) {
                // stream closed after the exit: what was read so far is what we keep
            }
        }

        synchronized byte[] kept() {
            return kept.toByteArray();
        }

        synchronized long total() {
            return total;
        }
    }
}
