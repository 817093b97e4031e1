package io.actiongate.cli.commands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.topics.Topics;

/**
 * What {@code propose} waits for: the first receipt of the offer it published, or the conflict the gate reports
 * when the key already holds another action. Positions on {@code receipts} and {@code conflicts} are fixed (at their
 * ends, read_committed) before the proposal is published, so nothing the gate writes for it is missed; the gate
 * re-publishes the latest receipt of a redelivered proposal, so a repeated {@code propose} answers too. A receipt
 * under the key for another tool or input is another action's, not this offer's (its conflict follows).
 */
final class FirstReceipt implements AutoCloseable {

    /** The answer: exactly one of receipt and conflict is set. */
    record Answer(Receipt receipt, IdentityConflict conflict) {
    }

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration METADATA_WAIT = Duration.ofSeconds(5);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String receiptsTopic;
    private final String conflictsTopic;

    /** Assigns every partition of both topics at their current end; call before publishing. */
    FirstReceipt(KafkaOptions kafka) {
        this.receiptsTopic = kafka.topic(Topics.RECEIPTS);
        this.conflictsTopic = kafka.topic(Topics.CONFLICTS);
        this.consumer = kafka.consumer().create(new StringDeserializer(),
                new ByteArrayDeserializer());
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(receiptsTopic, conflictsTopic)) {
                List<PartitionInfo> infos = partitions(topic);
                if (infos.isEmpty()) {
                    throw new CommandFailure("topic " + topic + " does not exist at " + kafka.bootstrapServers()
                            + "; create the topics first, or propose with --no-wait");
                }
                infos.forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position); // resolve the ends now, before the proposal exists
        } catch (KafkaException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw new CommandFailure("cannot read " + receiptsTopic + " at " + kafka.bootstrapServers() + ": "
                    + e.getMessage() + " (propose with --no-wait to publish without waiting)", e);
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw e;
        }
    }

    /** The topic's partitions; a topic created a moment ago may take a few metadata rounds to show them. */
    private List<PartitionInfo> partitions(String topic) {
        long deadline = System.nanoTime() + METADATA_WAIT.toNanos();
        while (true) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic);
            if ((infos != null && !infos.isEmpty()) || System.nanoTime() > deadline) {
                return infos == null ? List.of() : infos;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            }
        }
    }

    /** The first receipt or conflict of {@code offer}, or empty after {@code timeout}. */
    Optional<Answer> await(ActionProposal offer, String key, Duration timeout) {
        String tool = tool(offer.getProvider(), offer.getToolName(), offer.getOperation());
        // the rules of the client library's ReceiptWatcher: an answer names the offer's action digest (the whole
        // frozen action, tenant included); a refusal that names none is the offer's when org, tool and input are
        String actionDigest = Digests.actionDigest(FrozenAction.of(offer));
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
                if (!key.equals(r.key()) || r.value() == null) {
                    continue;
                }
                try {
                    if (r.topic().equals(receiptsTopic)) {
                        Receipt receipt = Topics.RECEIPTS.valueSerde().deserializer().deserialize(r.topic(),
                                r.value());
                        boolean ours = receipt.getActionDigest() != null
                                ? receipt.getActionDigest().equals(actionDigest)
                                : receipt.getStatus() == ReceiptStatus.REJECTED
                                        && offer.getOrgId().equals(receipt.getOrgId())
                                        && tool.equals(tool(receipt.getProvider(), receipt.getToolName(),
                                                receipt.getOperation()))
                                        && offer.getInputDigest().equals(receipt.getInputDigest());
                        if (ours) {
                            return Optional.of(new Answer(receipt, null));
                        }
                    } else {
                        IdentityConflict c = Topics.CONFLICTS.valueSerde().deserializer().deserialize(r.topic(),
                                r.value());
                        if (actionDigest.equals(c.getOfferedDigest()) && tool.equals(c.getOfferedTool())) {
                            return Optional.of(new Answer(null, c));
                        }
                    }
                } catch (AvroDecodeException e) {
                    // not a record of this contract version: not ours to interpret
                }
            }
        }
        return Optional.empty();
    }

    /** {@code provider:tool_name:operation}, as the gate names a tool in an {@code IdentityConflict}. */
    private static String tool(String provider, String toolName, String operation) {
        return provider + ":" + toolName + ":" + operation;
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
    }
}
