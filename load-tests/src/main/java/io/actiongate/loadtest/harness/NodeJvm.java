package io.actiongate.loadtest.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.actiongate.sandbox.LoopbackHttpServers;

/**
 * The benchmark's handle on one {@link NodeProcess}: a child JVM started from this JVM's own {@code java} and class
 * path (so it works from the bench jar and from the test class path), its settings in a properties file, its
 * stderr (logs) in {@code NAME.log} next to it. Only this child is ever signalled: closing ends its stdin (the node
 * closes cleanly), then {@link Process#destroy()} and at last {@link Process#destroyForcibly()} if it hangs.
 */
public final class NodeJvm implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private volatile String readyLine = "";

    private NodeJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::read, "bench-node-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a node with {@code roles} and {@code settings} in a JVM with {@code -Xmx<heap>}; its files go to
     * {@code dir}. Returns once the child started (not yet ready: see {@link #awaitReady}).
     */
    public static NodeJvm start(String name, String roles, Map<String, String> settings, String heap, Path dir)
            throws IOException {
        Map<String, String> withRoles = new java.util.LinkedHashMap<>(settings);
        withRoles.put(NodeProcess.ROLES, roles);
        return start(name, NodeProcess.class, List.of("-Xmx" + heap), withRoles, dir);
    }

    /**
     * Starts {@code main} (a class with the protocol of {@link NodeProcess}: one properties file as its argument,
     * {@value NodeProcess#READY} on stdout, requests on stdin) with {@code settings} in a JVM with
     * {@code jvmOptions}; its files go to {@code dir}.
     */
    public static NodeJvm start(String name, Class<?> main, List<String> jvmOptions, Map<String, String> settings,
            Path dir)
            throws IOException {
        Files.createDirectories(dir);
        Properties p = new Properties();
        p.putAll(settings);
        Path file = dir.resolve(name + ".properties");
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "benchmark node " + name);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Dlogback.configurationFile=logback-bench.xml");
        for (String forwarded : List.of(LoopbackHttpServers.NODELAY, "actiongate.bench.log")) {
            if (System.getProperty(forwarded) != null) {
                cmd.add("-D" + forwarded + "=" + System.getProperty(forwarded));
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.add(file.toString());
        Path log = dir.resolve(name + ".log");
        Process process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new NodeJvm(name, process, log);
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the child ended
        }
        lines.add("EOF");
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    /** Waits for the node's ready line; throws with the tail of its log when it failed or timed out. */
    public void awaitReady() throws InterruptedException {
        String line = next(NodeProcess.READY, READY_TIMEOUT);
        if (line == null || !line.startsWith(NodeProcess.READY)) {
            throw failure("not ready: " + (line == null ? "timeout" : line));
        }
        readyLine = line;
    }

    /** A {@code name=value} field of the ready line (after {@link #awaitReady}). */
    public String readyField(String field) {
        return field(readyLine, field);
    }

    /** The node's answer to {@code status}: its gate's state and how many proposal partitions it holds. */
    public Status status() throws IOException, InterruptedException {
        String line = request("status", "STATUS");
        return new Status(field(line, "state"), Integer.parseInt(field(line, "partitions")));
    }

    public record Status(String state, int partitions) {
        public boolean running() {
            return "RUNNING".equals(state);
        }
    }

    /** The node's heap right after a full GC, and its resident set size read from /proc (0 where there is none). */
    public Memory memory() throws IOException, InterruptedException {
        String line = request("memory", "MEMORY");
        return new Memory(Long.parseLong(field(line, "heap_used")), Long.parseLong(field(line, "heap_committed")),
                Long.parseLong(field(line, "heap_max")), rssBytes(process.pid()));
    }

    public record Memory(long heapUsed, long heapCommitted, long heapMax, long rss) {
    }

    /**
     * This node as a process a CPU window counts: its process tree's ticks from /proc, and its CPU by thread group
     * asked of the node itself (request {@code cpu}). A node that does not answer fails the window's sample.
     */
    public CpuAccount.GroupedProcess cpuByGroup() {
        long pid = process.pid();
        return new CpuAccount.GroupedProcess() {
            @Override
            public long getAsLong() {
                return CpuAccount.processTreeTicks(pid);
            }

            @Override
            public Map<CpuAccount.Group, Long> groupNanos() {
                try {
                    String line = request("cpu", "CPU");
                    return CpuAccount.parseGroupNanos(line.substring("CPU".length()));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted asking node " + name + " for its CPU", e);
                }
            }
        };
    }

    /** CPU ticks of this node's JIT compiler threads so far ({@link CpuAccount#compilerTicks}); -1 if unknown. */
    public long compilerTicks() {
        return CpuAccount.compilerTicks(process.pid());
    }

    /** CPU ticks of this node's JIT compilers and log cleaners so far ({@link CpuAccount#afterLoadTicks}). */
    public long afterLoadTicks() {
        return CpuAccount.afterLoadTicks(process.pid());
    }

    /** VmRSS of {@code pid} from /proc/PID/status, in bytes; 0 when not readable (not Linux). */
    public static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    public synchronized String request(String command, String answer) throws IOException, InterruptedException {
        if (!process.isAlive()) {
            throw failure("exited with " + process.exitValue() + " before " + command);
        }
        stdin.write(command + "\n");
        stdin.flush();
        String line = next(answer, REPLY_TIMEOUT);
        if (line == null || !line.startsWith(answer)) {
            throw failure("no answer to " + command + ": " + line);
        }
        return line;
    }

    /** The next line starting with {@code prefix}, the failure or end line, or null on timeout. */
    private String next(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null || line.startsWith(prefix) || line.startsWith(NodeProcess.FAILED)
                    || line.equals("EOF")) {
                return line;
            }
        }
    }

    private static String field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no " + name + " in " + line);
    }

    private IllegalStateException failure(String what) {
        String tail = "";
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            tail = String.join("\n", all.subList(Math.max(0, all.size() - 20), all.size()));
        } catch (IOException e) {
            // no log to show
        }
        return new IllegalStateException("node " + name + " (pid " + process.pid() + ") " + what
                + (tail.isEmpty() ? "" : "\nlast lines of " + log + ":\n" + tail));
    }

    /** Ends stdin so the node closes itself; destroys it if it has not exited within a minute. */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(15, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
