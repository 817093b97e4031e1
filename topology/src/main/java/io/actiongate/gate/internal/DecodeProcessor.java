package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;

import io.opentelemetry.api.trace.SpanKind;

import io.actiongate.connector.spi.Tracing;
import io.actiongate.contract.ReasonCode;
import io.actiongate.key.ActionLogContext;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.TraceHeaders;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.topics.Topics;

/**
 * Decodes one input topic's raw bytes in one place. A value that does not decode becomes a dead letter
 * ({@code SCHEMA_INVALID} with the decoder's reason) and the partition keeps moving; a tombstone is ignored.
 * Decoded records go to {@code next} as {@link Inbound} keyed by the UTF-8 key (null when absent).
 */
public final class DecodeProcessor<T extends org.apache.avro.specific.SpecificRecordBase>
        implements Processor<byte[], byte[], Object, Object> {

    private final AvroSerde<T> serde;
    private final String next;
    private final Set<String> hopTopics;
    private final boolean signatureVerified;
    private final GroupCommits commits;
    /** Whether only actiongate's roles write this input: an unknown version on it stops the gate. */
    private final boolean ownTopic;
    private ProcessorContext<Object, Object> context;

    /**
     * Decodes for {@code next}; records read from one of {@code hopTopics} are named by their {@link Origin}.
     * {@code signatureVerified}: this decoder reads only decisions whose signature the claim verified. A record read
     * back from a hop is reported to {@code commits} once processed: a hop is an input of its own (see
     * {@link GroupCommits}).
     */
    public DecodeProcessor(AvroSerde<T> serde, String next, Set<String> hopTopics, boolean signatureVerified,
                           GroupCommits commits) {
        this.serde = serde;
        this.commits = commits;
        this.next = next;
        this.hopTopics = Set.copyOf(hopTopics);
        this.signatureVerified = signatureVerified;
        this.ownTopic = Topics.writtenOnlyByActiongate(serde.type());
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

    private String where(Origin origin) {
        if (origin != null) {
            return origin.topic() + "-" + origin.partition() + "@" + origin.offset();
        }
        return context.recordMetadata().map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
                .orElse(serde.type().getSimpleName() + " input");
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        decode(record);
        if (Origin.readFromHop(context, hopTopics)) {
            commits.processed(context);
        }
    }

    private void decode(Record<byte[], byte[]> record) {
        byte[] payload = record.value();
        if (payload == null) {
            return;
        }
        Origin origin = hopTopics.isEmpty() ? null : Origin.of(context, record.headers(), hopTopics);
        T value;
        try {
            value = serde.deserialize(context.recordMetadata().map(m -> m.topic()).orElse(null), payload);
        } catch (AvroDecodeException e) {
            if (ownTopic) {
                // a record of a version this gate does not read on a topic only actiongate writes: a newer role
                // wrote it, and dead-lettering it would lose it (docs/contract.md section 3)
                UnknownFormatException newer = serde.newerVersion(payload, record.headers(), where(origin));
                if (newer != null) {
                    throw newer;
                }
            }
            DeadLetters.send(context, origin, record.key(), payload, ReasonCode.SCHEMA_INVALID, e.getMessage());
            return;
        } catch (RuntimeException e) {
            DeadLetters.send(context, origin, record.key(), payload, ReasonCode.SCHEMA_INVALID,
                    serde.type().getSimpleName() + " does not decode: " + e.getClass().getSimpleName());
            return;
        }
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        // every processor downstream runs inside this forward: their log lines carry the action key, and the
        // record's W3C trace context is current (a new action keeps it, see Lifecycle#save)
        try (ActionLogContext.Scope ignored = ActionLogContext.enter(key);
             Tracing.Scope traced = Tracing.continueTrace(TraceHeaders.read(record.headers()), "actiongate.gate",
                     SpanKind.CONSUMER)) {
            context.forward(new Record<Object, Object>(key, new Inbound<>(value, record.key(), payload, origin,
                    signatureVerified), record.timestamp(), record.headers()), next);
        }
    }
}
