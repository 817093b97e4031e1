package io.actiongate.http;

/**
 * Committed receipts as this node's receipts consumer reads them ({@code read_committed}): a long poll registers for
 * its action and is woken by the action's next receipt instead of re-reading the state store on a timer.
 */
@FunctionalInterface
interface ReceiptFeed {

    /** No feed (no receipts consumer on this node): a long poll re-reads the store every {@value ActionWaitHandler#POLL_MS} ms. */
    ReceiptFeed NONE = (actionKey, wake) -> null;

    /**
     * Calls {@code wake} whenever a receipt of {@code actionKey} is read, until the returned handle is closed; null
     * when this feed cannot watch. {@code wake} runs on the consumer's thread and must return at once.
     */
    AutoCloseable watch(String actionKey, Runnable wake);
}
