package io.actiongate.cli.commands;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;

import io.actiongate.kafka.KafkaFailures;
import io.actiongate.topics.TopicSpec;

/** Writes a few keyed records to one contract topic and waits until Kafka has them all. */
final class TopicWriter {

    private static final long WAIT_SECONDS = 30;

    private TopicWriter() {
    }

    /** One record; a null value is a tombstone. */
    record Entry<V>(String key, V value) {
    }

    static <V> List<RecordMetadata> write(KafkaOptions kafka, TopicSpec<String, V> spec, List<Entry<V>> entries)
            throws InterruptedException {
        return write(kafka, spec, partitions -> entries);
    }

    /**
     * One record whose value depends on the topic's partition count (a decision whose id is chosen to sit on its
     * action's partition); returns the value written.
     */
    static <V> V writeOne(KafkaOptions kafka, TopicSpec<String, V> spec, String key, IntFunction<V> valueForPartitions)
            throws InterruptedException {
        List<V> value = new ArrayList<>(1);
        write(kafka, spec, partitions -> {
            value.add(valueForPartitions.apply(partitions));
            return List.of(new Entry<>(key, value.get(0)));
        });
        return value.get(0);
    }

    /**
     * Writes the entries built for the topic's partition count, which the producer that then writes them reads
     * from the broker's metadata (the metadata its first send would fetch anyway).
     */
    private static <V> List<RecordMetadata> write(KafkaOptions kafka, TopicSpec<String, V> spec,
                                                  IntFunction<List<Entry<V>>> entriesForPartitions)
            throws InterruptedException {
        String topic = kafka.topic(spec);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, V> producer = kafka.producer().create(
                spec.keySerde().serializer(), spec.valueSerde().serializer())) {
            for (Entry<V> entry : entriesForPartitions.apply(producer.partitionsFor(topic).size())) {
                sent.add(producer.send(new ProducerRecord<>(topic, entry.key(), entry.value())));
            }
            producer.flush();
            List<RecordMetadata> written = new ArrayList<>();
            for (Future<RecordMetadata> future : sent) {
                written.add(future.get(WAIT_SECONDS, TimeUnit.SECONDS));
            }
            return written;
        } catch (ExecutionException e) {
            throw failure(topic, kafka, e.getCause());
        } catch (TimeoutException e) {
            throw failure(topic, kafka, e);
        } catch (KafkaException e) {
            throw failure(topic, kafka, e);
        }
    }

    private static CommandFailure failure(String topic, KafkaOptions kafka, Throwable cause) {
        String why = cause == null ? "unknown error" : KafkaFailures.describe(cause, KafkaFailures.Access.WRITE);
        return new CommandFailure("cannot write to " + topic + " at " + kafka.bootstrapServers() + ": " + why, cause);
    }
}
