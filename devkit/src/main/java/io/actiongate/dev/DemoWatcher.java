package io.actiongate.dev;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.cli.commands.ReceiptLine;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.topics.Topics;

/**
 * Follows receipts, conflicts and dead letters of one demo run (records whose key starts with the run's task id),
 * printing each receipt as it arrives, and lets the scenario wait for what it expects. Single-threaded: the
 * scenario polls it while waiting.
 */
final class DemoWatcher implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String receipts;
    private final String conflicts;
    private final String deadLetters;
    private final String taskId;
    private final PrintWriter out;
    private final List<Receipt> seenReceipts = new ArrayList<>();
    private final List<IdentityConflict> seenConflicts = new ArrayList<>();
    private final List<DeadLetter> seenDeadLetters = new ArrayList<>();

    DemoWatcher(String bootstrapServers, String prefix, String taskId, PrintWriter out) {
        this.consumer = KafkaClients.of(bootstrapServers, Map.of()).consumer("actiongate-demo-watcher")
                .set(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")
                .create(new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.receipts = Topics.RECEIPTS.name(prefix);
        this.conflicts = Topics.CONFLICTS.name(prefix);
        this.deadLetters = Topics.DEAD_LETTERS.name(prefix);
        this.taskId = taskId;
        this.out = out;
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(receipts, conflicts, deadLetters)) {
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        }
        consumer.assign(partitions);
        // the run's task id is new, so everything of this run comes after the current end
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    private void pollOnce(Duration timeout) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
            String key = record.key() == null ? "" : new String(record.key(), java.nio.charset.StandardCharsets.UTF_8);
            if (!key.startsWith(taskId + "/")) {
                continue;
            }
            if (record.topic().equals(receipts)) {
                Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(record.topic(), record.value());
                seenReceipts.add(receipt);
                out.println("    receipt   " + ReceiptLine.format(receipt));
            } else if (record.topic().equals(conflicts)) {
                IdentityConflict conflict =
                        Topics.CONFLICTS.valueSerde().deserializer().deserialize(record.topic(), record.value());
                seenConflicts.add(conflict);
                out.println("    conflict  " + key + "  existing " + conflict.getExistingDigest() + "  offered "
                        + conflict.getOfferedDigest());
            } else {
                DeadLetter letter =
                        Topics.DEAD_LETTERS.valueSerde().deserializer().deserialize(record.topic(), record.value());
                seenDeadLetters.add(letter);
                out.println("    dead letter " + key + "  from " + letter.getSourceTopic() + "  reason "
                        + letter.getReasonCode());
            }
            out.flush();
        }
    }

    /** Waits for a receipt of {@code callId} matching {@code expected}, seen now or before. */
    Receipt awaitReceipt(String callId, Predicate<Receipt> expected, Duration timeout, String what)
            throws TimeoutException {
        return await(() -> seenReceipts.stream()
                .filter(r -> r.getToolCallId().equals(callId) && expected.test(r)).reduce((a, b) -> b)
                .orElse(null), timeout, what);
    }

    IdentityConflict awaitConflict(String callId, Duration timeout) throws TimeoutException {
        return await(() -> seenConflicts.stream().filter(c -> c.getToolCallId().equals(callId)).findFirst()
                .orElse(null), timeout, "an identity conflict for " + callId);
    }

    DeadLetter awaitDeadLetter(String reasonCode, Duration timeout) throws TimeoutException {
        return await(() -> seenDeadLetters.stream().filter(d -> d.getReasonCode().equals(reasonCode)).findFirst()
                .orElse(null), timeout, "a dead letter with reason " + reasonCode);
    }

    /** Keeps consuming for {@code quiet} and returns every receipt of {@code callId} seen so far. */
    List<Receipt> settle(String callId, Duration quiet) {
        long end = System.nanoTime() + quiet.toNanos();
        while (System.nanoTime() < end) {
            pollOnce(Duration.ofMillis(200));
        }
        return seenReceipts.stream().filter(r -> r.getToolCallId().equals(callId)).collect(Collectors.toList());
    }

    long receiptCount(String callId) {
        return seenReceipts.stream().filter(r -> r.getToolCallId().equals(callId)).count();
    }

    private <T> T await(java.util.function.Supplier<T> found, Duration timeout, String what)
            throws TimeoutException {
        long end = System.nanoTime() + timeout.toNanos();
        T value = found.get();
        while (value == null) {
            if (System.nanoTime() > end) {
                throw new TimeoutException("no " + what + " within " + timeout.toSeconds() + " s");
            }
            pollOnce(Duration.ofMillis(200));
            value = found.get();
        }
        return value;
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
