package io.actiongate.loadtest.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;

import io.actiongate.gate.GateConfig;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.JvmDefaults;
import io.actiongate.node.Role;
import io.actiongate.topics.Topics;

/**
 * One actiongate node in a JVM of its own, for the benchmark's parts that need separate processes (scale: 1 vs 2
 * gate instances; memory: the gate's heap and RSS alone). {@code NodeProcess FILE} reads the node's settings from
 * the properties file FILE, with the roles under {@value #ROLES}, starts an {@link ActiongateNode} and prints
 * {@value #READY} on stdout once every role runs. It then answers one-line requests on stdin, one line each on
 * stdout:
 * <ul>
 *   <li>{@code status}: {@code STATUS state=<gate's Streams state> partitions=<partitions of the proposals topic
 *       among this instance's active tasks>};</li>
 *   <li>{@code memory}: runs a full GC ({@link System#gc()}, twice) and prints {@code MEMORY heap_used=<bytes>
 *       heap_committed=<bytes> heap_max=<bytes>};</li>
 *   <li>{@code cpu}: {@code CPU stream=<ns> executor=<ns> ...}, this JVM's cumulative CPU by thread group
 *       ({@link CpuAccount#groupNanos()}), so that the benchmark splits a node's CPU as it splits its own.</li>
 * </ul>
 * End of stdin (the parent closed it or died) closes the node and exits 0; a role that stops on its own prints
 * {@value #FAILED} and exits 1. Logs go to stderr.
 */
public final class NodeProcess {

    public static final String ROLES = "bench.node.roles";
    public static final String READY = "NODE READY";
    public static final String FAILED = "NODE FAILED";

    /** Set once stdin ended: the node is closing on request, a stopped role is then no failure. */
    private static volatile boolean closing;

    private NodeProcess() {
    }

    public static void main(String[] args) throws Exception {
        JvmDefaults.apply(); // as actiongate's own mains do
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-bench.xml");
        }
        if (args.length != 1) {
            System.err.println("usage: NodeProcess NODE.properties");
            System.exit(2);
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> config = new HashMap<>();
        p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
        Set<Role> roles = Role.parse(config.remove(ROLES));
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        try (ActiongateNode node = ActiongateNode.start(config, roles)) {
            while (!node.ready()) {
                if (node.failure().isPresent()) {
                    out.println(FAILED + " " + node.failure().get());
                    System.exit(1);
                }
                Thread.sleep(50);
            }
            Thread watchdog = new Thread(() -> watch(node, out), "bench-node-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
            out.println(READY + " http=" + node.httpPort() + " pid=" + ProcessHandle.current().pid());
            serve(node, config, out);
            closing = true;
        }
        System.exit(0);
    }

    /** Answers requests until stdin ends. */
    private static void serve(ActiongateNode node, Map<String, String> config, PrintStream out) throws IOException {
        String proposals = Topics.PROPOSALS.name(config.getOrDefault(GateConfig.TOPIC_PREFIX_CONFIG,
                Topics.DEFAULT_PREFIX));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line.strip()) {
                case "status" -> out.println(status(node, proposals));
                case "memory" -> out.println(memory());
                case "cpu" -> out.println("CPU " + CpuAccount.formatGroupNanos(CpuAccount.groupNanos()));
                default -> out.println("UNKNOWN " + line.strip());
            }
        }
    }

    public static String status(ActiongateNode node, String proposals) {
        if (node.gate().isEmpty()) {
            return "STATUS state=NONE partitions=0";
        }
        KafkaStreams streams = node.gate().get().streams();
        long partitions = 0;
        try {
            partitions = streams.metadataForLocalThreads().stream()
                    .map(ThreadMetadata::activeTasks).flatMap(Set::stream)
                    .flatMap(task -> task.topicPartitions().stream())
                    .filter(tp -> tp.topic().equals(proposals)).distinct().count();
        } catch (RuntimeException e) {
            // not queryable in this state: report none assigned
        }
        return "STATUS state=" + streams.state() + " partitions=" + partitions;
    }

    public static String memory() {
        System.gc();
        System.gc();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return String.format(Locale.ROOT, "MEMORY heap_used=%d heap_committed=%d heap_max=%d", heap.getUsed(),
                heap.getCommitted(), heap.getMax());
    }

    private static void watch(ActiongateNode node, PrintStream out) {
        while (true) {
            if (!closing && node.failure().isPresent()) {
                out.println(FAILED + " " + node.failure().get());
                Runtime.getRuntime().halt(1);
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
