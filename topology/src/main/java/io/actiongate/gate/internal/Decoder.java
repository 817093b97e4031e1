package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;

import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.streams.processor.api.ProcessorContext;
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
 * Decodes one input topic's raw bytes, once per record read: the one decoding step of {@link DecodeProcessor} and of
 * {@link DecisionRouteProcessor}, which passes the decoded decision on rather than have the next node decode it
 * again. A value that does not decode becomes a dead letter ({@code SCHEMA_INVALID} with the decoder's reason) and
 * the partition keeps moving; a value of a newer version on a topic only actiongate writes stops the gate.
 */
final class Decoder<T extends SpecificRecordBase> {

    private final AvroSerde<T> serde;
    /** Whether only actiongate's roles write this input: an unknown version on it stops the gate. */
    private final boolean ownTopic;

    Decoder(AvroSerde<T> serde) {
        this.serde = serde;
        this.ownTopic = Topics.writtenOnlyByActiongate(serde.type());
    }

    /**
     * The decoded value of a record with a non-null value, or null once it has been dead-lettered through
     * {@code context} (named by {@code origin}, null for the record's own position).
     *
     * @throws UnknownFormatException the value is of a newer version on a topic only actiongate writes
     */
    T decode(ProcessorContext<Object, Object> context, Record<byte[], byte[]> record, Origin origin) {
        byte[] payload = record.value();
        try {
            return serde.deserialize(context.recordMetadata().map(m -> m.topic()).orElse(null), payload);
        } catch (AvroDecodeException e) {
            if (ownTopic) {
                // a record of a version this gate does not read on a topic only actiongate writes: a newer role
                // wrote it, and dead-lettering it would lose it (docs/contract.md section 3)
                UnknownFormatException newer = serde.newerVersion(payload, record.headers(), where(context, origin));
                if (newer != null) {
                    throw newer;
                }
            }
            DeadLetters.send(context, origin, record.key(), payload, ReasonCode.SCHEMA_INVALID, e.getMessage());
            return null;
        } catch (RuntimeException e) {
            DeadLetters.send(context, origin, record.key(), payload, ReasonCode.SCHEMA_INVALID,
                    serde.type().getSimpleName() + " does not decode: " + e.getClass().getSimpleName());
            return null;
        }
    }

    /**
     * Forwards {@code in} to {@code next} keyed by the UTF-8 record key (null when absent). Every processor downstream
     * runs inside this forward: their log lines carry the action key, and the record's W3C trace context is current
     * (a new action keeps it, see Lifecycle#save).
     */
    static void forward(ProcessorContext<Object, Object> context, Record<byte[], byte[]> record, Inbound<?> in,
                        String next) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        ActionLogContext.Scope logged = ActionLogContext.enter(key);
        Tracing.Scope traced = Tracing.continueTrace(TraceHeaders.read(record.headers()), "actiongate.gate",
                SpanKind.CONSUMER);
        try (logged; traced) {
            context.forward(new Record<Object, Object>(key, in, record.timestamp(), record.headers()), next);
        }
    }

    private String where(ProcessorContext<Object, Object> context, Origin origin) {
        if (origin != null) {
            return AvroSerde.where(origin.topic(), origin.partition(), origin.offset());
        }
        return context.recordMetadata().map(m -> AvroSerde.where(m.topic(), m.partition(), m.offset()))
                .orElse(serde.type().getSimpleName() + " input");
    }
}
