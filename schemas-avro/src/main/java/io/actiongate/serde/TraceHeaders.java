package io.actiongate.serde;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The W3C trace context headers ({@code traceparent}, {@code tracestate}) of a Kafka record, as the string map
 * {@code io.actiongate.connector.spi.Tracing} works with. Only these two headers are read or written; their
 * values are bounded so a producer cannot make the gate store or forward large headers.
 */
public final class TraceHeaders {

    public static final List<String> NAMES = List.of("traceparent", "tracestate");
    /** W3C: traceparent is 55 characters in version 00, tracestate at most 32 members of 256 characters. */
    private static final int MAX_VALUE_BYTES = 512;

    private TraceHeaders() {
    }

    /** The last value of each trace header of {@code headers}; empty when none is set. */
    public static Map<String, String> read(Headers headers) {
        Map<String, String> trace = new LinkedHashMap<>();
        if (headers == null) {
            return trace;
        }
        for (String name : NAMES) {
            Header header = headers.lastHeader(name);
            if (header != null && header.value() != null && header.value().length <= MAX_VALUE_BYTES) {
                trace.put(name, new String(header.value(), StandardCharsets.US_ASCII));
            }
        }
        return trace;
    }

    /** Sets the trace headers of {@code trace} on {@code headers}, replacing earlier ones; returns {@code headers}. */
    public static Headers write(Headers headers, Map<String, String> trace) {
        if (trace == null) {
            return headers;
        }
        for (String name : NAMES) {
            String value = trace.get(name);
            if (value != null && !value.isEmpty() && value.length() <= MAX_VALUE_BYTES) {
                headers.remove(name);
                headers.add(name, value.getBytes(StandardCharsets.US_ASCII));
            }
        }
        return headers;
    }
}
