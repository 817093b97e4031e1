package io.actiongate.gate.internal;

import java.time.Instant;
import java.util.Optional;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.DeadLetter;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.scan.CredentialScanner;

/**
 * The one dead-letter handler of the gate. Every record the gate cannot use (undecodable bytes, invalid keys,
 * failed decisions, outcomes for unknown actions) goes through {@link #send}: a {@link DeadLetter} naming the
 * source topic, partition, offset, a reason code and a reason, and the payload only by SHA-256 and size. The
 * payload itself never leaves: it may hold secrets.
 */
public final class DeadLetters {

    /** Name of the sink node writing to the dead-letters topic. */
    public static final String SINK = "dead-letters-sink";

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
    private static final String NO_PAYLOAD_SHA256 = Digests.sha256Hex(new byte[0]);

    private static final CredentialScanner KEYS = CredentialScanner.defaults();
    /** What a dead letter's key starts with when the source key held credential material. */
    public static final String REDACTED_KEY_PREFIX = "redacted-key:sha256:";

    private DeadLetters() {
    }

    /**
     * The key a dead letter goes out under: the source key's bytes as they were, unless the credential scanner finds
     * credential material in them (a producer's token where an id belongs): then {@value #REDACTED_KEY_PREFIX} and
     * the SHA-256 of those bytes, which finds the record without repeating the token.
     */
    static byte[] letterKey(byte[] rawKey) {
        if (rawKey == null || KEYS.scan(new String(rawKey, java.nio.charset.StandardCharsets.UTF_8)).isEmpty()) {
            return rawKey;
        }
        return (REDACTED_KEY_PREFIX + Digests.sha256Hex(rawKey)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Builds the dead letter for the record being processed. {@code reason} must not quote the payload. */
    public static DeadLetter of(Optional<RecordMetadata> source, byte[] payload, ReasonCode code, String reason,
                                long now) {
        return DeadLetter.newBuilder()
                .setSourceTopic(source.map(RecordMetadata::topic).orElse(""))
                .setPartition(source.map(RecordMetadata::partition).orElse(-1))
                .setOffset(source.map(RecordMetadata::offset).orElse(-1L))
                .setReasonCode(code.name())
                .setReason(reason)
                .setPayloadSha256(payload == null ? NO_PAYLOAD_SHA256 : Digests.sha256Hex(payload))
                .setPayloadSize(payload == null ? 0 : payload.length)
                .setReceivedAt(Instant.ofEpochMilli(now))
                .build();
    }

    /** Publishes a dead letter for the record being processed, keyed by the source key bytes. */
    public static void send(ProcessorContext<Object, Object> context, byte[] rawKey, byte[] payload,
                            ReasonCode code, String reason) {
        send(context, null, rawKey, payload, code, reason);
    }

    /** Publishes a dead letter for a decoded input record, naming where it was first read. */
    public static void send(ProcessorContext<Object, Object> context, Inbound<?> in, ReasonCode code, String reason) {
        send(context, in.origin(), in.rawKey(), in.rawValue(), code, reason);
    }

    /**
     * Publishes a dead letter naming {@code origin} as its source (the record being processed when null): a record
     * that hopped is named by its position in the input topic, not in the hop topic.
     */
    public static void send(ProcessorContext<Object, Object> context, Origin origin, byte[] rawKey, byte[] payload,
                            ReasonCode code, String reason) {
        long now = context.currentSystemTimeMs();
        DeadLetter letter = of(origin == null ? context.recordMetadata() : Optional.of(asMetadata(origin)), payload,
                code, reason, now);
        LOG.warn("dead letter from {}-{}@{}: {} ({})", letter.getSourceTopic(), letter.getPartition(),
                letter.getOffset(), code, reason);
        context.forward(new Record<Object, Object>(letterKey(rawKey), letter, now), SINK);
    }

    private static RecordMetadata asMetadata(Origin origin) {
        return new RecordMetadata() {
            @Override
            public String topic() {
                return origin.topic();
            }

            @Override
            public int partition() {
                return origin.partition();
            }

            @Override
            public long offset() {
                return origin.offset();
            }
        };
    }
}
