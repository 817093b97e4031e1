package io.actiongate.loadtest.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateTopology;
import io.actiongate.gate.OperationClassifiers;
import io.actiongate.topics.Topics;

/** A {@link TopologyTestDriver} over the gate or the baseline, with raw-bytes topics so no clock measures encoding. */
public final class Drivers {

    public static final Instant START = Instant.parse("2026-03-01T12:00:00Z");
    public static final String BASELINE_IN = "baseline.in";
    public static final String BASELINE_OUT = "baseline.out";

    private Drivers() {
    }

    /** One driver and its topics; closing it deletes its state directory. */
    public static final class Run implements AutoCloseable {
        private final TopologyTestDriver driver;
        private final Path stateDir;

        public Run(Topology topology, String applicationId, Path stateRoot) {
            try {
                this.stateDir = Files.createTempDirectory(stateRoot, applicationId + "-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a state directory under " + stateRoot, e);
            }
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            this.driver = new TopologyTestDriver(topology, props, START);
        }

        public TestInputTopic<String, byte[]> input(String topic) {
            return driver.createInputTopic(topic, new StringSerializer(), new ByteArraySerializer(), START,
                    java.time.Duration.ZERO);
        }

        public TestOutputTopic<String, byte[]> output(String topic) {
            return driver.createOutputTopic(topic, new StringDeserializer(), new ByteArrayDeserializer());
        }

        /** Pipes every record of {@code records} into {@code topic}, in order. */
        public void pipe(String topic, Workload.Encoded records) {
            Drivers.pipe(input(topic), records);
        }

        /** Drops whatever the topology wrote to {@code topic} so far. */
        public void drain(String topic) {
            output(topic).readRecordsToList();
        }

        /** The last receipt status of every key the gate wrote a receipt for, draining the receipts topic. */
        public Map<String, ReceiptStatus> lastReceiptStatus(String prefix) {
            Map<String, ReceiptStatus> last = new HashMap<>();
            for (TestRecord<String, byte[]> r : output(Topics.RECEIPTS.name(prefix)).readRecordsToList()) {
                Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, r.value());
                last.put(r.key(), receipt.getStatus());
            }
            return last;
        }

        /** Every receipt status of every key the gate wrote a receipt for, in order, draining the receipts topic. */
        public Map<String, List<ReceiptStatus>> receiptStatuses(String prefix) {
            Map<String, List<ReceiptStatus>> all = new HashMap<>();
            for (TestRecord<String, byte[]> r : output(Topics.RECEIPTS.name(prefix)).readRecordsToList()) {
                Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(null, r.value());
                all.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(receipt.getStatus());
            }
            return all;
        }

        public long drainCount(String topic) {
            return output(topic).readRecordsToList().size();
        }

        /** Records the topology wrote since the last call, per topic it wrote to (sinks and changelogs), draining. */
        public Map<String, Integer> drainProduced() {
            Map<String, Integer> counts = new TreeMap<>();
            for (String topic : driver.producedTopicNames()) {
                int n = output(topic).readRecordsToList().size();
                if (n > 0) {
                    counts.put(topic, n);
                }
            }
            return counts;
        }

        @Override
        public void close() {
            driver.close();
            deleteQuietly(stateDir);
        }
    }

    /**
     * Pipes every record of {@code records} into {@code in}, in order: the work a topology row times, so nothing
     * but the driver's own processing happens here (the records are encoded beforehand).
     */
    public static void pipe(TestInputTopic<String, byte[]> in, Workload.Encoded records) {
        List<String> keys = records.keys();
        List<byte[]> values = records.values();
        for (int i = 0; i < keys.size(); i++) {
            in.pipeInput(keys.get(i), values.get(i));
        }
    }

    public static Run gate(Workload workload, Path stateRoot) {
        Map<String, String> settings = new HashMap<>(workload.gateSettings());
        GateConfig config = GateConfig.fromStrings(settings);
        Run run = new Run(GateTopology.build(config, classifiers()), "bench-gate", stateRoot);
        TestInputTopic<String, byte[]> policy = run.input(Topics.POLICY.name(config.topicPrefix()));
        for (Map.Entry<String, PolicyRecord> e : workload.policy().entrySet()) {
            policy.pipeInput(e.getKey(), Topics.POLICY.valueSerde().serializer().serialize(null, e.getValue()));
        }
        return run;
    }

    /**
     * The gate classifies with the webhook connector's own logic, configured as {@code BrokerBench} configures the
     * node: {@value Workload#READ_TOOL} is a read, {@value Workload#SEND_TOOL} an effect. Classifying never calls out.
     */
    public static OperationClassifiers classifiers() {
        return OperationClassifiers.of(ConnectorRegistry.load(Map.of(
                "connectors.webhook.base-url", "http://127.0.0.1:9",
                "connectors.webhook.operations", Workload.SEND_TOOL,
                "connectors.webhook.read-operations", Workload.READ_TOOL)));
    }


    public static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
