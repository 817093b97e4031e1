package io.actiongate.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One child JVM of the chaos run (the broker, a gate, an executor or the reconciler), started from this JVM's
 * class path. Its output goes to {@code logs/NAME.log}. Only processes started here are ever signalled: by the
 * {@link Process} handle (SIGKILL, SIGTERM) or {@code kill -STOP/-CONT <its pid>}.
 */
final class Child {

    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private final String readyLine;
    private Process process;
    private volatile CountDownLatch ready = new CountDownLatch(1);
    private boolean paused;

    Child(String name, List<String> command, Map<String, String> environment, Path logDir, String readyLine) {
        this.name = name;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.log = logDir.resolve(name + ".log");
        this.readyLine = readyLine;
    }

    static List<String> javaCommand(String heap, String mainClass, List<String> args) {
        return javaCommand(heap, System.getProperty("java.class.path"), mainClass, args);
    }

    /** A JVM of {@code classpath} (this build's, or another release's jar in an upgrade run). */
    static List<String> javaCommand(String heap, String classpath, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:-UsePerfData");
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * The same child (name, environment, log, ready line) running on {@code classpath} instead: what an upgrade
     * replaces an instance with. Not started; this one is left as it is.
     */
    Child onClasspath(String classpath) {
        List<String> cmd = new ArrayList<>(command);
        int at = cmd.indexOf("-cp");
        cmd.set(at + 1, classpath);
        return new Child(name, cmd, environment, log.getParent(), readyLine);
    }

    String name() {
        return name;
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    synchronized void start() {
        if (alive()) {
            return;
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        CountDownLatch latch = new CountDownLatch(1);
        ready = latch;
        paused = false;
        try {
            Files.writeString(log, "=== start " + java.time.Instant.now() + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        Process started = process;
        Thread pump = new Thread(() -> pump(started, latch), "chaos-log-" + name);
        pump.setDaemon(true);
        pump.start();
    }

    private void pump(Process started, CountDownLatch latch) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(started.getInputStream(),
                StandardCharsets.UTF_8));
             Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.write(line);
                out.write('\n');
                out.flush();
                if (line.contains(readyLine)) {
                    latch.countDown();
                }
            }
        } catch (IOException e) {
            // the process died; its log ends here
        }
    }

    /** Waits until the child printed its ready line; false when it died or the time ran out. */
    boolean awaitReady(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        CountDownLatch latch = ready;
        while (System.currentTimeMillis() < deadline) {
            if (latch.await(200, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (!alive()) {
                return false;
            }
        }
        return false;
    }

    /** SIGKILL: no shutdown hook, no LeaveGroup, no transaction commit or abort. */
    void kill9() throws InterruptedException {
        Process p;
        synchronized (this) {
            p = process;
        }
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** SIGTERM (graceful: the node's shutdown hook closes it), then SIGKILL after {@code graceMs}. */
    void stop(long graceMs) throws InterruptedException {
        Process p;
        synchronized (this) {
            p = process;
            if (paused) {
                signal("CONT");
                paused = false;
            }
        }
        if (p != null && p.isAlive()) {
            p.destroy();
            if (!p.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    synchronized void pause() {
        signal("STOP");
        paused = true;
    }

    synchronized void resume() {
        if (paused) {
            signal("CONT");
            paused = false;
        }
    }

    private void signal(String signal) {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send SIG" + signal + " to " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
