package io.actiongate.loadtest.harness;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import io.actiongate.dev.DevComponents;
import io.actiongate.dev.DevEnvironment;
import io.actiongate.node.JvmDefaults;
import io.actiongate.sandbox.SandboxWebhookProvider;

/**
 * {@code actiongate dev} in a JVM of its own, as the closed-loop part measures it: the same {@link DevEnvironment}
 * with the same components and settings that {@code ./actiongate dev} starts (broker, topics, demo policy, gate,
 * executor, reconciler, approval service, MCP gateway, sandboxes), with three settings of the benchmark's over them:
 * the HTTP port, the tool-host token file, and the webhook connector's base URL, which points at a sandbox provider
 * this process starts so that it can count the requests per idempotency key.
 *
 * <p>{@code DevNodeProcess FILE}: FILE holds the settings (properties) over dev's own, and under
 * {@value #DATA_DIR} the broker's data directory. Prints {@code NODE READY http=<port> pid=<pid>
 * bootstrap=<host:port>} once everything runs, then answers on stdin, one line each: {@code cpu} (as
 * {@link NodeProcess}) and {@code provider}: {@code PROVIDER requests=<all effect requests> keys=<distinct
 * idempotency keys> max=<most requests of one key>}, and {@code kafka}: {@code KAFKA Produce=<n> Fetch=<n> ...}, the
 * broker's requests by kind, cumulative (see {@link #kafkaCounters}). End of stdin closes everything and exits 0.
 */
public final class DevNodeProcess {

    public static final String DATA_DIR = "bench.dev.data.dir";
    public static final String PROVIDER_LATENCY_MS = "bench.dev.provider.latency.ms";

    private DevNodeProcess() {
    }

    public static void main(String[] args) throws Exception {
        JvmDefaults.apply();
        if (args.length != 1) {
            System.err.println("usage: DevNodeProcess SETTINGS.properties");
            System.exit(2);
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, String> config = new HashMap<>();
        p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
        Path dataDir = Path.of(config.remove(DATA_DIR));
        long latencyMs = Long.parseLong(config.getOrDefault(PROVIDER_LATENCY_MS, "0"));
        config.remove(PROVIDER_LATENCY_MS);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        try (SandboxWebhookProvider provider = SandboxWebhookProvider.start()) {
            provider.latency(Duration.ofMillis(latencyMs));
            config.put("connectors.webhook.base-url", provider.baseUri().toString());
            try (DevEnvironment dev = DevEnvironment.start(new DevEnvironment.Settings(0, dataDir, config),
                    DevComponents.defaults())) {
                out.println(NodeProcess.READY + " http=" + config.get("http.port") + " pid="
                        + ProcessHandle.current().pid() + " bootstrap=" + dev.bootstrapServers());
                serve(provider, out);
            }
        }
        System.exit(0);
    }

    /** The broker's requests the closed-loop rows count per action, by request name. */
    public static final java.util.List<String> REQUESTS = java.util.List.of("Produce", "Fetch", "EndTxn",
            "TxnOffsetCommit",
            "OffsetCommit", "AddPartitionsToTxn", "WriteTxnMarkers");

    /**
     * The broker's answers {@code CONCURRENT_TRANSACTIONS}, to any request: a transaction's first write to a partition
     * that found the producer's previous transaction still writing its markers, each such answer one more round of
     * waiting (the broker retries it after {@code add.partitions.to.txn.retry.backoff.ms}).
     */
    public static final String CONCURRENT_TRANSACTIONS = "ConcurrentTransactions";

    /** Everything {@link #kafkaCounters()} counts: {@link #REQUESTS}, then {@link #CONCURRENT_TRANSACTIONS}. */
    public static final java.util.List<String> COUNTERS = java.util.stream.Stream.concat(REQUESTS.stream(),
            java.util.stream.Stream.of(CONCURRENT_TRANSACTIONS)).toList();

    /**
     * Cumulative counts of the broker's requests of each of {@link #REQUESTS} (its request metrics, over every API
     * version), then of its {@link #CONCURRENT_TRANSACTIONS} answers, as {@code name=count} pairs. EndTxn are the
     * gate's transactions (nothing else here is transactional); WriteTxnMarkers the transaction coordinator's marker
     * writes; AddPartitionsToTxn its verification of a transaction's first write to each partition.
     */
    public static String kafkaCounters() {
        javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        StringBuilder b = new StringBuilder();
        for (String request : REQUESTS) {
            long count = (long) sum(jmx, "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=" + request
                    + ",*", "Count");
            b.append(b.length() == 0 ? "" : " ").append(request).append('=').append(count);
        }
        long concurrent = (long) sum(jmx, "kafka.network:type=RequestMetrics,name=ErrorsPerSec,request=*,error="
                + "CONCURRENT_TRANSACTIONS", "Count");
        return b.append(' ').append(CONCURRENT_TRANSACTIONS).append('=').append(concurrent).toString();
    }

    private static double sum(javax.management.MBeanServer jmx, String pattern, String attribute) {
        double total = 0;
        try {
            for (javax.management.ObjectName name : jmx.queryNames(new javax.management.ObjectName(pattern), null)) {
                Object v = jmx.getAttribute(name, attribute);
                if (v instanceof Number n && Double.isFinite(n.doubleValue())) {
                    total += n.doubleValue();
                }
            }
        } catch (javax.management.JMException e) {
            return Double.NaN;
        }
        return total;
    }

    private static void serve(SandboxWebhookProvider provider, PrintStream out) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line.strip()) {
                case "cpu" -> out.println("CPU " + CpuAccount.formatGroupNanos(CpuAccount.groupNanos()));
                case "kafka" -> out.println("KAFKA " + kafkaCounters());
                case "provider" -> {
                    Map<String, Integer> byKey = provider.requestsByKey();
                    int max = byKey.values().stream().mapToInt(Integer::intValue).max().orElse(0);
                    out.println("PROVIDER requests=" + provider.totalRequests() + " keys=" + byKey.size() + " max="
                            + max);
                }
                default -> out.println("UNKNOWN " + line.strip());
            }
        }
    }
}
