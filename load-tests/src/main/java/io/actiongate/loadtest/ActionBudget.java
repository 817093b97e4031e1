package io.actiongate.loadtest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.broker.EmbeddedKafkaBroker;
import io.actiongate.gate.GateConfig;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.topics.Topics;
import io.actiongate.topics.admin.TopicsCreator;

import io.actiongate.loadtest.harness.BrokerRuns;
import io.actiongate.loadtest.harness.Drivers;
import io.actiongate.loadtest.harness.OutputWatcher;
import io.actiongate.loadtest.harness.Workload;

/**
 * What one read-only action costs in records and commits: the setup of row f (one node with gate and executor,
 * the sandbox webhook provider, the gate's default commits as in the benchmark), M actions produced at once after a
 * warm-up, and then, per action, the records written to every topic (data records, and offsets taken by
 * transaction markers), the gate's transactions and the executor's offset commits. Counted, not estimated: the
 * records are read back ({@code read_uncommitted}, so aborted ones count too) between offsets snapshotted before
 * and after the measured actions.
 *
 * <pre>
 * java -cp load-tests/target/actiongate-load-tests-*-bench.jar io.actiongate.loadtest.ActionBudget [--actions 2000]
 *      [--partitions 12] [--set key=value ...]
 * </pre>
 */
public final class ActionBudget {

    private ActionBudget() {
    }

    public static void main(String[] args) throws Exception {
        int actions = 2000;
        int partitions = Topics.DEFAULT_PARTITIONS;
        Map<String, String> settings = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--actions" -> actions = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                case "--set" -> {
                    String kv = args[++i];
                    settings.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-bench.xml");
        }
        Path state = Files.createTempDirectory("actiongate-budget-");
        try {
            run(actions, partitions, settings, state);
        } finally {
            Drivers.deleteQuietly(state);
        }
        System.exit(0);
    }

    public static void run(int actions, int partitions, Map<String, String> settings, Path stateRoot) throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(stateRoot.resolve("broker")).start();
             SandboxWebhookProvider provider = SandboxWebhookProvider.start()) {
            String bootstrap = broker.bootstrapServers();
            String id = "budget-" + UUID.randomUUID().toString().substring(0, 8);
            String prefix = id + ".";
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                new TopicsCreator(admin, 60_000).create(TopicsCreator.Plan.of(prefix, partitions, (short) 1));
            }
            Workload workload = new Workload("T-" + id);
            try (KafkaProducer<String, byte[]> producer = BrokerRuns.producer(bootstrap)) {
                for (Map.Entry<String, PolicyRecord> e : workload.policy().entrySet()) {
                    producer.send(new ProducerRecord<>(Topics.POLICY.name(prefix), e.getKey(),
                            Topics.POLICY.valueSerde().serializer().serialize(null, e.getValue()))).get();
                }
            }
            Map<String, String> config = new HashMap<>(workload.gateSettings());
            config.put(GateConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(GateConfig.TOPIC_PREFIX_CONFIG, prefix);
            config.put(GateConfig.APPLICATION_ID_CONFIG, id);
            config.put(GateConfig.STATE_DIR_CONFIG, Files.createDirectories(stateRoot.resolve(id)).toString());
            config.put(GateConfig.STREAMS_PREFIX + StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
                    BrokerRuns.COMMIT_INTERVAL_MS);
            config.put("executor.group.id", id + "-executor");
            config.put("http.port", "0");
            config.put("http.bind.address", "127.0.0.1");
            config.put("connectors.webhook.base-url", provider.baseUri().toString());
            config.put("connectors.webhook.operations", Workload.SEND_TOOL);
            config.put("connectors.webhook.read-operations", Workload.READ_TOOL);
            config.put("connectors.webhook.response-timeout-ms", "10000");
            config.putAll(settings);
            try (ActiongateNode node = ActiongateNode.start(config, Role.parse("gate,executor"));
                 Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                while (!node.ready()) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("node not ready");
                    }
                    Thread.sleep(50);
                }
                String in = Topics.PROPOSALS.name(prefix);
                String out = Topics.RECEIPTS.name(prefix);
                burst(bootstrap, in, out, workload.proposals("warm", Workload.READ_TOOL, Math.max(50, actions / 4),
                        Instant.now()));
                Thread.sleep(500); // let the warm-up's last commits land
                Map<TopicPartition, Long> before = endOffsets(admin);
                Map<String, Double> countersBefore = counters(node);
                long started = System.nanoTime();
                burst(bootstrap, in, out, workload.proposals("b", Workload.READ_TOOL, actions, Instant.now()));
                double seconds = (System.nanoTime() - started) / 1e9;
                Thread.sleep(1000); // the last transaction's markers and the executor's last commit
                Map<TopicPartition, Long> after = endOffsets(admin);
                Map<String, Double> countersAfter = counters(node);
                print(actions, seconds, bootstrap, before, after, countersBefore, countersAfter);
            }
        }
    }

    private static void burst(String bootstrap, String in, String out, Workload.Encoded records) throws Exception {
        try (OutputWatcher watcher = OutputWatcher.start(bootstrap, out, records.keys(),
                v -> Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, v).getStatus()
                        == ReceiptStatus.SUCCEEDED);
             KafkaProducer<String, byte[]> producer = BrokerRuns.producer(bootstrap)) {
            for (int i = 0; i < records.size(); i++) {
                producer.send(new ProducerRecord<>(in, records.keys().get(i), records.values().get(i)));
            }
            producer.flush();
            watcher.awaitAll(Duration.ofSeconds(60).plusMillis(100L * records.size()));
            long done = java.util.Arrays.stream(watcher.doneAt()).filter(t -> t != 0).count();
            if (done != records.size()) {
                throw new IllegalStateException(done + " of " + records.size() + " actions SUCCEEDED");
            }
        }
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin) throws Exception {
        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get().forEach((name, d) -> d.partitions()
                .forEach(p -> specs.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(specs).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** The cumulative counters of the gate's streams and of every client the node's registry sees. */
    private static Map<String, Double> counters(ActiongateNode node) {
        Map<String, Double> out = new TreeMap<>();
        node.gate().ifPresent(gate -> {
            for (Map.Entry<MetricName, ? extends Metric> e : gate.streams().metrics().entrySet()) {
                MetricName n = e.getKey();
                boolean wanted = (n.group().equals("stream-thread-metrics") && n.name().equals("commit-total"))
                        || (n.group().equals("producer-metrics") && (n.name().equals("record-send-total")
                        || n.name().equals("txn-commit-time-ns-total") || n.name().equals("request-total")));
                if (wanted && e.getValue().metricValue() instanceof Number v) {
                    out.merge("gate " + n.group() + " " + n.name(), v.doubleValue(), Double::sum);
                }
            }
        });
        // the executor's clients, from the node's own /metrics (text format; /metrics needs no token by default)
        try {
            java.net.http.HttpResponse<String> scrape = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + node.httpPort()
                            + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            for (String line : scrape.body().split("\n")) {
                if (line.startsWith("#") || !line.contains("client_id=\"executor")) {
                    continue;
                }
                String name = line.substring(0, line.indexOf('{'));
                if (name.equals("kafka_consumer_coordinator_commit_total")
                        || name.equals("kafka_producer_record_send_total")
                        || name.equals("kafka_producer_request_total")) {
                    out.merge("executor " + name, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)),
                            Double::sum);
                }
            }
        } catch (java.io.IOException e) {
            System.out.println("could not read the node's /metrics: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out;
    }

    private static void print(int actions, double seconds, String bootstrap, Map<TopicPartition, Long> before,
                              Map<TopicPartition, Long> after, Map<String, Double> countersBefore,
                              Map<String, Double> countersAfter) {
        System.out.printf(Locale.ROOT, "%d read-only actions produced at once: %.0f actions/s%n", actions,
                actions / seconds);
        Map<String, long[]> byTopic = new TreeMap<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            for (Map.Entry<TopicPartition, Long> e : after.entrySet()) {
                TopicPartition tp = e.getKey();
                long from = before.getOrDefault(tp, 0L);
                long to = e.getValue();
                if (to <= from) {
                    continue;
                }
                long[] sums = byTopic.computeIfAbsent(tp.topic(), t -> new long[3]);
                sums[0] += to - from;
                consumer.assign(List.of(tp));
                consumer.seek(tp, from);
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (consumer.position(tp) < to && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.offset() < to) {
                            sums[1]++;
                            sums[2] += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0
                                    : r.value().length);
                        }
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "%-58s %10s %10s %10s%n", "topic (per action)", "records", "markers",
                "bytes");
        List<String> rows = new ArrayList<>(byTopic.keySet());
        for (String topic : rows) {
            long[] s = byTopic.get(topic);
            System.out.printf(Locale.ROOT, "%-58s %10.2f %10.2f %10.0f%n", topic, s[1] / (double) actions,
                    (s[0] - s[1]) / (double) actions, s[2] / (double) actions);
        }
        System.out.println("counters (per action, and in all):");
        Set<String> names = countersAfter.keySet().stream().collect(Collectors.toCollection(java.util.TreeSet::new));
        for (String name : names) {
            double delta = countersAfter.get(name) - countersBefore.getOrDefault(name, 0.0);
            System.out.printf(Locale.ROOT, "  %-80s %10.4f %12.0f%n", name, delta / actions, delta);
        }
    }
}
