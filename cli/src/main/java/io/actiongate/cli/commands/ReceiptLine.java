package io.actiongate.cli.commands;

import io.actiongate.avro.Receipt;

/** One human-readable line per receipt: time, action key, status, reason code, attempts, provider receipt id. */
public final class ReceiptLine {

    private ReceiptLine() {
    }

    public static String format(Receipt r) {
        return String.format("%s  %s/%s  %-16s %-28s attempts=%d  provider_receipt=%s",
                r.getUpdatedAt(), r.getTaskId(), r.getToolCallId(), r.getStatus(),
                r.getReasonCode() == null ? "-" : r.getReasonCode(),
                r.getAttempts() == null ? 0 : r.getAttempts().size(),
                r.getProviderReceiptId() == null ? "-" : r.getProviderReceiptId());
    }
}
