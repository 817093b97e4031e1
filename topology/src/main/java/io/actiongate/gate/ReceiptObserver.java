package io.actiongate.gate;

import io.actiongate.avro.Receipt;

/**
 * Sees every receipt the gate publishes, on the stream thread, right before it goes to the receipts topic: for
 * metrics. It must be quick and must not throw. Under exactly-once a receipt of an aborted transaction is seen
 * again when its input is reprocessed, so counts from here can exceed what the topic holds after a crash.
 */
@FunctionalInterface
public interface ReceiptObserver {

    ReceiptObserver NONE = receipt -> { };

    void published(Receipt receipt);
}
