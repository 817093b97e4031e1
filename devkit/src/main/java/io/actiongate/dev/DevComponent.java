package io.actiongate.dev;

/**
 * A role that {@code actiongate dev} runs next to the embedded broker: the gate, the executor, the reconciler,
 * sandbox providers, the demo policy. Components start in list order once the broker and the topics are up, and are
 * closed in reverse order. Register one in {@link DevComponents}.
 */
public interface DevComponent {

    /** Short name for logs and the startup summary, e.g. {@code gate}. */
    String name();

    /**
     * Starts the component and returns what stops it. May add lines to the summary with
     * {@link DevContext#hint(String)}. A failure stops {@code dev}, closing everything started before.
     */
    AutoCloseable start(DevContext context) throws Exception;

    /**
     * Whether what {@link #start} started can serve now (a role answering its API, not only a thread running):
     * {@code dev} announces that it runs only once every component is ready.
     */
    default boolean ready() {
        return true;
    }
}
