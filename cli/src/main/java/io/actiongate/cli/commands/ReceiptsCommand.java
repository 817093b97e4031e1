package io.actiongate.cli.commands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.avro.Receipt;
import io.actiongate.http.AvroJson;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.topics.Topics;

/**
 * {@code actiongate receipts [--follow]}: prints receipts (committed data only) as lines or JSON. Without
 * {@code --follow} it prints what the topic holds now and exits; with it, it starts at the end (or the beginning
 * with {@code --from-beginning}) and runs until Ctrl-C. Partitions are assigned by hand: no consumer group, nothing
 * committed, no effect on other readers.
 */
@Command(name = "receipts", description = "Print receipts from the receipts topic.")
public final class ReceiptsCommand extends OperatorCommand {

    private static final Duration POLL = Duration.ofMillis(500);

    @Option(names = "--follow", description = "Keep printing new receipts until interrupted.")
    boolean follow;

    @Option(names = "--from-beginning", description = "With --follow: start at the oldest receipt, not the end.")
    boolean fromBeginning;

    @Option(names = "--json", description = "Print each receipt as one JSON line.")
    boolean json;

    @Option(names = "--max-messages", paramLabel = "N", description = "Exit after printing N receipts.")
    Integer maxMessages;

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Override
    int execute() throws Exception {
        String topic = kafka.topic(Topics.RECEIPTS);
        Deserializer<Receipt> serde = Topics.RECEIPTS.valueSerde().deserializer();
        CountDownLatch done = new CountDownLatch(1);
        try (KafkaConsumer<String, byte[]> consumer = kafka.consumer().create(
                new StringDeserializer(), new ByteArrayDeserializer())) {
            Thread hook = new Thread(() -> {
                consumer.wakeup();
                awaitQuietly(done);
            }, "actiongate-receipts-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                List<TopicPartition> partitions = partitions(consumer, topic);
                consumer.assign(partitions);
                if (follow && !fromBeginning) {
                    consumer.seekToEnd(partitions);
                } else {
                    consumer.seekToBeginning(partitions);
                }
                Map<TopicPartition, Long> end = follow ? Map.of() : consumer.endOffsets(partitions);
                print(consumer, serde, topic, end);
            } catch (WakeupException e) {
                // Ctrl-C: a clean exit
            } catch (org.apache.kafka.common.KafkaException e) {
                throw new CommandFailure("cannot read " + topic + " at " + kafka.bootstrapServers() + ": "
                        + KafkaFailures.describe(e, KafkaFailures.Access.READ), e);
            } finally {
                done.countDown();
                removeHook(hook);
            }
        }
        return 0;
    }

    private void print(KafkaConsumer<String, byte[]> consumer, Deserializer<Receipt> serde, String topic,
                       Map<TopicPartition, Long> end) {
        int printed = 0;
        while (follow || !reached(consumer, end)) {
            for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                if (record.value() == null) {
                    continue;
                }
                Receipt receipt;
                try {
                    receipt = serde.deserialize(topic, record.value());
                } catch (SerializationException e) {
                    err().printf("skipped undecodable receipt at %s-%d@%d%n", record.topic(), record.partition(),
                            record.offset());
                    err().flush();
                    continue;
                }
                out().println(json ? AvroJson.toJson(receipt).toString() : ReceiptLine.format(receipt));
                out().flush();
                printed++;
                if (maxMessages != null && printed >= maxMessages) {
                    return;
                }
            }
        }
    }

    private static boolean reached(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private List<TopicPartition> partitions(KafkaConsumer<String, byte[]> consumer, String topic) {
        Map<String, List<PartitionInfo>> topics;
        try {
            topics = new HashMap<>(consumer.listTopics());
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new CommandFailure("cannot reach Kafka at " + kafka.bootstrapServers()
                    + ": timed out listing topics", e);
        }
        List<PartitionInfo> infos = topics.get(topic);
        if (infos == null || infos.isEmpty()) {
            throw new CommandFailure("topic " + topic + " does not exist at " + kafka.bootstrapServers()
                    + " or this principal may not DESCRIBE it (create topics first, check --prefix, or grant the "
                    + "ACLs of 'actiongate acls')");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(info -> partitions.add(new TopicPartition(info.topic(), info.partition())));
        return partitions;
    }

    private static void awaitQuietly(CountDownLatch done) {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook is running and waits for us
        }
    }
}
