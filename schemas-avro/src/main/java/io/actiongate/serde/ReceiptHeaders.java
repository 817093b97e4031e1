package io.actiongate.serde;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The header the gate puts on every receipt besides the trace context (docs/contract.md section 3):
 * {@value #ATTACHMENTS}, the number of attachments of the action, as decimal ASCII. A reader that cleans up staged
 * objects skips an action whose receipt says 0; a receipt without the header (written by a gate before it) says
 * nothing, and the reader looks.
 */
public final class ReceiptHeaders {

    public static final String ATTACHMENTS = "actiongate-attachments";

    private ReceiptHeaders() {
    }

    /** Sets {@value #ATTACHMENTS} to {@code count}, replacing an earlier one; returns {@code headers}. */
    public static Headers writeAttachments(Headers headers, int count) {
        headers.remove(ATTACHMENTS);
        headers.add(ATTACHMENTS, Integer.toString(count).getBytes(StandardCharsets.US_ASCII));
        return headers;
    }

    /** The attachment count the receipt's headers state; empty when absent or not a small decimal number. */
    public static OptionalInt attachments(Headers headers) {
        Header header = headers == null ? null : headers.lastHeader(ATTACHMENTS);
        if (header == null || header.value() == null || header.value().length == 0 || header.value().length > 4) {
            return OptionalInt.empty();
        }
        int n = 0;
        for (byte b : header.value()) {
            if (b < '0' || b > '9') {
                return OptionalInt.empty();
            }
            n = n * 10 + (b - '0');
        }
        return OptionalInt.of(n);
    }
}
