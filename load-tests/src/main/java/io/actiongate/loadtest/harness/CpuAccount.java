package io.actiongate.loadtest.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Where the CPU of a timed window goes, per action: the machine's busy CPU from {@code /proc/stat} (every process
 * on the machine, so other work on a shared machine is in it), this JVM's threads from {@link ThreadMXBean} grouped
 * by thread name into the {@link Group}s, and the CPU of other processes the row runs (PostgreSQL's) from
 * {@code /proc/<pid>/stat}. {@link #start} samples at the window's start, {@link Probe#stop} at its end.
 *
 * <p>A thread born inside the window counts with all its CPU; one that died inside it is lost (its CPU is in the
 * machine's and the JVM's totals only). The JVM's own threads (GC, JIT compiler) are group {@code jvm}; what no
 * group's pattern matches is {@code other}.
 */
public final class CpuAccount {

    /** Clock ticks per second of {@code /proc/stat} and {@code /proc/<pid>/stat} (USER_HZ, 100 on Linux). */
    public static final long CLOCK_TICKS_PER_SECOND = 100;

    /** Thread groups, in the order the report prints them. */
    public enum Group {
        STREAM("stream threads"),
        EXECUTOR("executor dispatch"),
        HTTP_CLIENT("HTTP client"),
        PROVIDER("provider (sandbox)"),
        BROKER("broker"),
        LOAD("load generator"),
        WATCHER("watcher"),
        POSTGRES_CLIENT("pg claim service"),
        JVM("jvm (gc, jit)"),
        OTHER("other");

        private final String label;

        Group(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The short name used in a row's notes ({@code cpu_us.<key>}). */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A process whose CPU ticks a window counts (as any {@code LongSupplier} of {@link #start(Map)}) and that can
     * also tell its CPU by thread group: a benchmark node JVM ({@link NodeJvm#cpuByGroup()}), which counts its own
     * threads with {@link #groupNanos()}. The window then splits the process's CPU as it splits this JVM's.
     */
    public interface GroupedProcess extends LongSupplier {
        /** The process's cumulative CPU nanoseconds by thread group. */
        Map<Group, Long> groupNanos();
    }

    /** Client ids and thread names of the harness's own clients, so that their threads are separable. */
    public static final String LOAD_CLIENT_ID = "bench-load";
    public static final String WATCHER_PREFIX = "bench-watch";

    private CpuAccount() {
    }

    /**
     * The group of a thread by its name. Kafka clients' background threads carry the client id after a {@code |}
     * ({@code kafka-producer-network-thread | <client.id>}); the Streams clients' ids carry {@code StreamThread}.
     */
    public static Group group(String name) {
        if (name.contains("StreamThread") || name.contains("GlobalStreamThread")) {
            return Group.STREAM;
        }
        if (name.startsWith("actiongate-executor") || name.startsWith("skeleton-executor")
                || name.contains(" | ") && name.contains("-executor-")) {
            return Group.EXECUTOR;
        }
        if (name.startsWith("HttpClient-")) {
            return Group.HTTP_CLIENT;
        }
        if (name.startsWith("sandbox-webhook") || name.startsWith("HTTP-Dispatcher")) {
            return Group.PROVIDER;
        }
        if (name.contains(LOAD_CLIENT_ID)) {
            return Group.LOAD;
        }
        if (name.startsWith(WATCHER_PREFIX) || name.contains("| " + WATCHER_PREFIX)) {
            return Group.WATCHER;
        }
        if (name.contains("pg-claim")) {
            return Group.POSTGRES_CLIENT;
        }
        if (name.contains(" | ")) {
            return Group.OTHER; // a Kafka client's background thread of no group above
        }
        if (name.startsWith("data-plane-kafka") || name.startsWith("kafka-network-thread")
                || name.startsWith("kafka-request-handler") || name.startsWith("broker-")
                || name.startsWith("controller-") || name.startsWith("raft-") || name.startsWith("kafka-")
                || name.startsWith("LogDirFailureHandler") || name.startsWith("ExpirationReaper")
                || name.startsWith("group-coordinator") || name.startsWith("transaction-")
                || name.startsWith("share-") || name.startsWith("quorum-") || name.startsWith("executor-")
                || name.startsWith("ThrottledChannelReaper") || name.startsWith("TxnMarkerSenderThread")
                || name.startsWith("log-cleaner") || name.startsWith("metrics-") || name.contains("Reaper")
                || name.startsWith("ReplicaFetcher") || name.startsWith("kafka-log-")
                || name.startsWith("persister-") || name.startsWith("event-processor")) {
            return Group.BROKER;
        }
        if (name.startsWith("GC ") || name.startsWith("G1 ") || name.startsWith("C1 ") || name.startsWith("C2 ")
                || name.startsWith("VM ") || name.contains("CompilerThread") || name.startsWith("Common-Cleaner")
                || name.startsWith("Reference Handler") || name.startsWith("Finalizer")
                || name.startsWith("Signal Dispatcher") || name.startsWith("Notification Thread")) {
            return Group.JVM;
        }
        return Group.OTHER;
    }

    /** Machine CPU counters: busy and all ticks since boot (the {@code cpu} line of {@code /proc/stat}). */
    public record MachineTicks(long busy, long total) {

        /** Parses the first line of {@code /proc/stat}; busy is user + nice + system + irq + softirq. */
        public static MachineTicks parse(String procStat) {
            String line = procStat.lines().filter(l -> l.startsWith("cpu ")).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no cpu line in /proc/stat"));
            String[] f = line.trim().split("\\s+");
            long user = Long.parseLong(f[1]);
            long nice = Long.parseLong(f[2]);
            long system = Long.parseLong(f[3]);
            long idle = Long.parseLong(f[4]);
            long iowait = f.length > 5 ? Long.parseLong(f[5]) : 0;
            long irq = f.length > 6 ? Long.parseLong(f[6]) : 0;
            long softirq = f.length > 7 ? Long.parseLong(f[7]) : 0;
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
            long busy = user + nice + system + irq + softirq;
            return new MachineTicks(busy, busy + idle + iowait + steal);
        }

        /** Now, or null where there is no {@code /proc/stat}. */
        public static MachineTicks read() {
            try {
                return parse(Files.readString(Path.of("/proc/stat"), StandardCharsets.US_ASCII));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    /** utime + stime of a process from the text of its {@code /proc/<pid>/stat}, in clock ticks. */
    public static long processTicks(String procPidStat) {
        // the command name (field 2) is in parentheses and may contain spaces: count fields after its last ')'
        String rest = procPidStat.substring(procPidStat.lastIndexOf(')') + 2);
        String[] f = rest.trim().split("\\s+");
        // rest starts with field 3 (state): utime is field 14, stime field 15
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** The parent pid from the text of a {@code /proc/<pid>/stat}. */
    public static long parentPid(String procPidStat) {
        String rest = procPidStat.substring(procPidStat.lastIndexOf(')') + 2);
        return Long.parseLong(rest.trim().split("\\s+")[1]);
    }

    /**
     * CPU ticks of process {@code root} and every descendant of it alive now (e.g. a postmaster and its backends);
     * 0 when {@code /proc} cannot be read.
     */
    public static long processTreeTicks(long root) {
        Map<Long, Long> parent = new HashMap<>();
        Map<Long, Long> ticks = new HashMap<>();
        try (var dirs = Files.list(Path.of("/proc"))) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                String name = dir.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                try {
                    String stat = Files.readString(dir.resolve("stat"), StandardCharsets.US_ASCII);
                    long pid = Long.parseLong(name);
                    parent.put(pid, parentPid(stat));
                    ticks.put(pid, processTicks(stat));
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to read
                }
            }
        } catch (IOException e) {
            return 0;
        }
        long sum = 0;
        for (Map.Entry<Long, Long> e : ticks.entrySet()) {
            long p = e.getKey();
            for (int depth = 0; depth < 16 && p > 1; depth++) {
                if (p == root) {
                    sum += e.getValue();
                    break;
                }
                p = parent.getOrDefault(p, 0L);
            }
        }
        return sum;
    }

    /**
     * CPU ticks of process {@code pid}'s JIT compiler threads ({@code C1 CompilerThread0}, {@code C2 CompilerThread0},
     * ..., named {@code C1 CompilerThre} and so on in {@code /proc/<pid>/task/<tid>/comm}), those alive now; -1 when
     * {@code /proc} cannot be read (not Linux).
     */
    public static long compilerTicks(long pid) {
        return threadTicks(pid, comm -> comm.contains("CompilerThre"));
    }

    /**
     * CPU ticks of process {@code pid}'s threads that finish what a load left behind: its JIT compilers
     * ({@link #compilerTicks}) and an embedded broker's log cleaners (Kafka's {@code kafka-log-cleaner-thread-N},
     * {@code kafka-log-clean} in {@code comm}), which compact the topics the load wrote; -1 when {@code /proc} cannot
     * be read.
     */
    public static long afterLoadTicks(long pid) {
        return threadTicks(pid, comm -> comm.contains("CompilerThre") || comm.startsWith("kafka-log-clean"));
    }

    /**
     * The cores that threads counted by {@link #compilerTicks} or {@link #afterLoadTicks} used between two readings
     * {@code seconds} apart; NaN when either reading failed (-1) or the count went down (a thread that ended took its
     * ticks along), so that no comparison with a threshold holds.
     */
    public static double coresBetween(long before, long after, long seconds) {
        return before < 0 || after < before ? Double.NaN : (after - before) / (double) CLOCK_TICKS_PER_SECOND / seconds;
    }

    private static long threadTicks(long pid, Predicate<String> comm) {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (comm.test(Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).strip())) {
                        sum += processTicks(Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII));
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return sum;
    }

    /**
     * What a window cost, in CPU microseconds, and the actions it did: the machine's, this JVM's by thread group,
     * each other process's, and the {@link GroupedProcess}es' together by thread group ({@code processGroupsUs},
     * empty when there were none).
     */
    public record Window(long actions, double seconds, Double machineUs, double machineCapacityUs, double jvmUs,
                  Map<Group, Double> groupsUs, Map<String, Double> processesUs, Map<Group, Double> processGroupsUs) {

        public Window {
            groupsUs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(groupsUs));
            processesUs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(processesUs));
            processGroupsUs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(processGroupsUs));
        }

        private double per(double us) {
            return actions == 0 ? Double.NaN : us / actions;
        }

        /** Machine busy CPU-µs per action (null without {@code /proc/stat}). */
        public Double machinePerAction() {
            return machineUs == null ? null : per(machineUs);
        }

        /** This JVM's and the row's other processes' CPU-µs per action. */
        public double ownPerAction() {
            return per(jvmUs + processesUs.values().stream().mapToDouble(Double::doubleValue).sum());
        }

        /** The share of the machine's CPU time the window had busy (0..1; null without /proc/stat). */
        public Double machineBusyShare() {
            return machineUs == null || machineCapacityUs <= 0 ? null : machineUs / machineCapacityUs;
        }

        public double groupPerAction(Group g) {
            return per(groupsUs.getOrDefault(g, 0.0));
        }

        public double processPerAction(String process) {
            return per(processesUs.getOrDefault(process, 0.0));
        }

        /** The figures as a row's notes: {@code cpu_us.machine}, {@code cpu_us.own}, {@code cpu_us.<group>}, ... */
        public Map<String, String> notes() {
            Map<String, String> n = new LinkedHashMap<>();
            n.put("timed_s", String.format(Locale.ROOT, "%.1f", seconds));
            Double machine = machinePerAction();
            n.put("cpu_us.machine", machine == null ? "n/a" : String.format(Locale.ROOT, "%.0f", machine));
            Double share = machineBusyShare();
            n.put("machine_busy", share == null ? "n/a" : String.format(Locale.ROOT, "%.0f%%", 100 * share));
            n.put("cpu_us.own", String.format(Locale.ROOT, "%.0f", ownPerAction()));
            for (Group g : Group.values()) {
                n.put("cpu_us." + g.key(), String.format(Locale.ROOT, "%.0f", groupPerAction(g)));
            }
            processesUs.keySet().forEach(p -> n.put("cpu_us." + p,
                    String.format(Locale.ROOT, "%.0f", processPerAction(p))));
            processGroupsUs.forEach((g, us) -> n.put("cpu_us.nodes." + g.key(),
                    String.format(Locale.ROOT, "%.0f", per(us))));
            return n;
        }

        /** One line: machine and own CPU per action, then each group that used any. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            Double machine = machinePerAction();
            b.append(String.format(Locale.ROOT, "cpu-us/action: machine %s (busy %s), this JVM%s %.0f =",
                    machine == null ? "n/a" : String.format(Locale.ROOT, "%.0f", machine),
                    machineBusyShare() == null ? "n/a"
                            : String.format(Locale.ROOT, "%.0f%%", 100 * machineBusyShare()),
                    processesUs.isEmpty() ? "" : " + " + String.join(" + ", processesUs.keySet()), ownPerAction()));
            for (Group g : Group.values()) {
                double v = groupPerAction(g);
                if (v >= 0.5) {
                    b.append(String.format(Locale.ROOT, " %s %.0f,", g.label(), v));
                }
            }
            processesUs.keySet().forEach(p -> b.append(String.format(Locale.ROOT, " %s %.0f,", p,
                    processPerAction(p))));
            if (!processGroupsUs.isEmpty()) {
                b.setLength(b.length() - (b.charAt(b.length() - 1) == ',' ? 1 : 0));
                b.append("; node JVMs:");
                processGroupsUs.forEach((g, us) -> {
                    if (per(us) >= 0.5) {
                        b.append(String.format(Locale.ROOT, " %s %.0f,", g.label(), per(us)));
                    }
                });
            }
            b.setLength(b.length() - (b.charAt(b.length() - 1) == ',' ? 1 : 0));
            b.append(String.format(Locale.ROOT, " (%.1f s timed)", seconds));
            return b.toString();
        }
    }

    /** Samples taken at the start of a window. */
    public static final class Probe {
        private final long startNanos;
        private final MachineTicks machine;
        private final long jvmNanos;
        private final Map<Long, Long> threads;
        private final Map<String, LongSupplier> processes;
        private final Map<String, Long> processTicks = new LinkedHashMap<>();
        private final Map<String, Map<Group, Long>> processGroups = new LinkedHashMap<>();

        private Probe(Map<String, LongSupplier> processes) {
            this.processes = processes;
            processes.forEach((name, ticks) -> {
                processTicks.put(name, ticks.getAsLong());
                if (ticks instanceof GroupedProcess grouped) {
                    processGroups.put(name, grouped.groupNanos());
                }
            });
            this.threads = threadCpu();
            this.jvmNanos = jvmCpuNanos();
            this.machine = MachineTicks.read();
            this.startNanos = System.nanoTime();
        }

        /** Ends the window: what it cost for {@code actions} actions. */
        public Window stop(long actions) {
            long end = System.nanoTime();
            MachineTicks m = MachineTicks.read();
            long jvm = jvmCpuNanos();
            Map<Group, Double> groups = new LinkedHashMap<>();
            for (Group g : Group.values()) {
                groups.put(g, 0.0);
            }
            for (ThreadCpu t : liveThreads()) {
                long delta = t.nanos() - threads.getOrDefault(t.id(), 0L);
                groups.merge(group(t.name()), delta / 1e3, Double::sum);
            }
            // the JVM's non-Java threads (GC workers, compilers) are not in ThreadMXBean: the rest of the process
            double javaThreads = groups.values().stream().mapToDouble(Double::doubleValue).sum();
            double jvmUs = (jvm - jvmNanos) / 1e3;
            groups.merge(Group.JVM, Math.max(0, jvmUs - javaThreads), Double::sum);
            Map<String, Double> procs = new LinkedHashMap<>();
            processes.forEach((name, ticks) -> procs.put(name,
                    (ticks.getAsLong() - processTicks.get(name)) * 1e6 / CLOCK_TICKS_PER_SECOND));
            Map<Group, Double> processGroupsUs = new LinkedHashMap<>();
            processGroups.forEach((name, before) -> {
                Map<Group, Long> after = ((GroupedProcess) processes.get(name)).groupNanos();
                for (Group g : Group.values()) {
                    long delta = after.getOrDefault(g, 0L) - before.getOrDefault(g, 0L);
                    processGroupsUs.merge(g, Math.max(0, delta) / 1e3, Double::sum);
                }
            });
            Double machineUs = null;
            double capacity = 0;
            if (machine != null && m != null) {
                machineUs = (m.busy() - machine.busy()) * 1e6 / CLOCK_TICKS_PER_SECOND;
                capacity = (m.total() - machine.total()) * 1e6 / CLOCK_TICKS_PER_SECOND;
            }
            return new Window(actions, (end - startNanos) / 1e9, machineUs, capacity, Math.max(jvmUs, javaThreads),
                    groups, procs, processGroupsUs);
        }
    }

    /** Starts a window now. */
    public static Probe start() {
        return new Probe(Map.of());
    }

    /** Starts a window now, also counting the CPU ticks each of {@code processes} reports. */
    public static Probe start(Map<String, LongSupplier> processes) {
        return new Probe(new LinkedHashMap<>(processes));
    }

    private static Map<Long, Long> threadCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        liveThreads().forEach(t -> cpu.put(t.id(), t.nanos()));
        return cpu;
    }

    /** A live Java thread of this JVM and the CPU it has used. */
    private record ThreadCpu(long id, String name, long nanos) {
    }

    /** This JVM's live Java threads with their CPU so far (threads that ended meanwhile, or unmeasured, left out). */
    private static List<ThreadCpu> liveThreads() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] ids = mx.getAllThreadIds();
        java.lang.management.ThreadInfo[] infos = mx.getThreadInfo(ids);
        List<ThreadCpu> out = new ArrayList<>(ids.length);
        for (int i = 0; i < ids.length; i++) {
            long cpu = mx.getThreadCpuTime(ids[i]);
            if (cpu >= 0 && infos[i] != null) {
                out.add(new ThreadCpu(ids[i], infos[i].getThreadName(), cpu));
            }
        }
        return out;
    }

    private static long jvmCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /**
     * This JVM's cumulative CPU nanoseconds by thread group: its live Java threads' CPU by {@link #group}, and the
     * rest of the process's CPU (GC workers, compilers, threads that ended) as {@link Group#JVM}. What a node JVM
     * answers its benchmark ({@link NodeProcess}, request {@code cpu}).
     */
    public static Map<Group, Long> groupNanos() {
        Map<Group, Long> groups = new java.util.EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            groups.put(g, 0L);
        }
        long javaThreads = 0;
        for (ThreadCpu t : liveThreads()) {
            groups.merge(group(t.name()), t.nanos(), Long::sum);
            javaThreads += t.nanos();
        }
        groups.merge(Group.JVM, Math.max(0, jvmCpuNanos() - javaThreads), Long::sum);
        return groups;
    }

    /** {@code stream=<ns> executor=<ns> ...}: every group's key and nanoseconds, as a node JVM prints them. */
    public static String formatGroupNanos(Map<Group, Long> nanos) {
        StringBuilder b = new StringBuilder();
        for (Group g : Group.values()) {
            b.append(b.length() == 0 ? "" : " ").append(g.key()).append('=').append(nanos.getOrDefault(g, 0L));
        }
        return b.toString();
    }

    /** The inverse of {@link #formatGroupNanos}; unknown keys are refused, a missing group is 0. */
    public static Map<Group, Long> parseGroupNanos(String text) {
        Map<Group, Long> nanos = new java.util.EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            nanos.put(g, 0L);
        }
        for (String field : text.trim().split("\\s+")) {
            if (field.isEmpty()) {
                continue;
            }
            int eq = field.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("expected group=nanoseconds, got " + field);
            }
            Group g = Group.valueOf(field.substring(0, eq).toUpperCase(Locale.ROOT));
            nanos.put(g, Long.parseLong(field.substring(eq + 1)));
        }
        return nanos;
    }

    /** Every thread's name with its group, for a look at what lands in {@code other}. */
    public static List<String> threadGroups() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<String> out = new ArrayList<>();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null) {
                out.add(group(info.getThreadName()) + "\t" + info.getThreadName());
            }
        }
        return out;
    }
}
