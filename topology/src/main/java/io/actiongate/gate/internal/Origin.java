package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where a record was first read: its input topic, partition and offset. A record that hops carries its origin in
 * headers, so a dead letter written after the hop still names the producer's record, not the hop topic (whose
 * records Streams purges). The headers are believed only on records read from the gate's own hop topics: on an
 * input topic they are whatever the producer wrote, and the record's real position is used.
 */
public record Origin(String topic, int partition, long offset) {

    static final String TOPIC = "actiongate.origin.topic";
    static final String PARTITION = "actiongate.origin.partition";
    static final String OFFSET = "actiongate.origin.offset";

    /**
     * The origin of the record being processed: from its headers when it was read from one of {@code hopTopics},
     * otherwise its own position (null when the context has no record metadata, e.g. in a punctuator).
     */
    public static Origin of(ProcessorContext<?, ?> context, Headers headers, Set<String> hopTopics) {
        RecordMetadata m = context.recordMetadata().orElse(null);
        if (m == null) {
            return null;
        }
        if (hopTopics.contains(m.topic())) {
            Origin carried = read(headers);
            if (carried != null) {
                return carried;
            }
        }
        return new Origin(m.topic(), m.partition(), m.offset());
    }

    /** Whether the record being processed was read from one of {@code hopTopics}. */
    public static boolean readFromHop(ProcessorContext<?, ?> context, Set<String> hopTopics) {
        if (hopTopics.isEmpty()) {
            return false;
        }
        RecordMetadata m = context.recordMetadata().orElse(null);
        return m != null && hopTopics.contains(m.topic());
    }

    /** A copy of {@code headers} with this origin in place of any origin headers they held. */
    public Headers stamp(Headers headers) {
        RecordHeaders out = new RecordHeaders();
        for (Header h : headers) {
            if (!h.key().equals(TOPIC) && !h.key().equals(PARTITION) && !h.key().equals(OFFSET)) {
                out.add(h);
            }
        }
        out.add(TOPIC, topic.getBytes(StandardCharsets.UTF_8));
        out.add(PARTITION, Integer.toString(partition).getBytes(StandardCharsets.UTF_8));
        out.add(OFFSET, Long.toString(offset).getBytes(StandardCharsets.UTF_8));
        return out;
    }

    static Origin read(Headers headers) {
        Header topic = headers.lastHeader(TOPIC);
        Header partition = headers.lastHeader(PARTITION);
        Header offset = headers.lastHeader(OFFSET);
        if (topic == null || partition == null || offset == null) {
            return null;
        }
        try {
            return new Origin(new String(topic.value(), StandardCharsets.UTF_8),
                    Integer.parseInt(new String(partition.value(), StandardCharsets.UTF_8)),
                    Long.parseLong(new String(offset.value(), StandardCharsets.UTF_8)));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
