package io.actiongate.gate.internal;

import java.util.Set;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;

import io.actiongate.serde.AvroSerde;

/**
 * Decodes one input topic's raw bytes in one place (through {@link Decoder}). A value that does not decode becomes a
 * dead letter ({@code SCHEMA_INVALID} with the decoder's reason) and the partition keeps moving; a tombstone is
 * ignored. Decoded records go to {@code next} as {@link Inbound} keyed by the UTF-8 key (null when absent).
 */
public final class DecodeProcessor<T extends org.apache.avro.specific.SpecificRecordBase>
        implements Processor<byte[], byte[], Object, Object> {

    private final Decoder<T> decoder;
    private final String next;
    private final Set<String> hopTopics;
    private final boolean signatureVerified;
    private final GroupCommits commits;
    private ProcessorContext<Object, Object> context;

    /**
     * Decodes for {@code next}; records read from one of {@code hopTopics} are named by their {@link Origin}.
     * {@code signatureVerified}: this decoder reads only decisions whose signature the claim verified. A record read
     * back from a hop is reported to {@code commits} once processed: a hop is an input of its own (see
     * {@link GroupCommits}).
     */
    public DecodeProcessor(AvroSerde<T> serde, String next, Set<String> hopTopics, boolean signatureVerified,
                           GroupCommits commits) {
        this.decoder = new Decoder<>(serde);
        this.commits = commits;
        this.next = next;
        this.hopTopics = Set.copyOf(hopTopics);
        this.signatureVerified = signatureVerified;
    }

    public static <T extends org.apache.avro.specific.SpecificRecordBase> ProcessorSupplier<byte[], byte[], Object, Object>
            supplier(AvroSerde<T> serde, String next, Set<String> hopTopics, GroupCommits commits) {
        return () -> new DecodeProcessor<>(serde, next, hopTopics, false, commits);
    }

    /** The decoder of the hop that carries claimed decisions (their signature verified) to their action. */
    public static <T extends org.apache.avro.specific.SpecificRecordBase> ProcessorSupplier<byte[], byte[], Object, Object>
            claimedSupplier(AvroSerde<T> serde, String next, Set<String> hopTopics, GroupCommits commits) {
        return () -> new DecodeProcessor<>(serde, next, hopTopics, true, commits);
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        decode(record);
        if (Origin.readFromHop(context, hopTopics)) {
            commits.processed(context);
        }
    }

    private void decode(Record<byte[], byte[]> record) {
        if (record.value() == null) {
            return;
        }
        Origin origin = hopTopics.isEmpty() ? null : Origin.of(context, record.headers(), hopTopics);
        T value = decoder.decode(context, record, origin);
        if (value != null) {
            Decoder.forward(context, record, new Inbound<>(value, record.key(), record.value(), origin,
                    signatureVerified), next);
        }
    }
}
