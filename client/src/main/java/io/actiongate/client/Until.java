package io.actiongate.client;

/** How long {@link ProposalHandle#receipt} waits. */
public enum Until {
    /** The first terminal receipt ({@link ReceiptState#isTerminal()}). */
    TERMINAL,
    /**
     * The first receipt that is {@code WAITING_APPROVAL} or terminal: the moment a tool host can tell its caller
     * "a human must approve this" (or the final answer, when no approval was needed).
     */
    WAITING_APPROVAL,
    /**
     * The first receipt, whatever its state: the action's current state. A redelivered proposal makes the gate
     * re-publish its latest receipt, so this answers "where is this call now?" without acting twice.
     */
    ANY,
    /**
     * The first receipt that is no longer {@code WAITING_APPROVAL}: a human decided (or no decision was needed), so
     * the action is on its way or settled.
     */
    DECIDED;

    boolean accepts(ReceiptState state) {
        return switch (this) {
            case ANY -> true;
            case TERMINAL -> state.isTerminal();
            case WAITING_APPROVAL -> state.isTerminal() || state == ReceiptState.WAITING_APPROVAL;
            case DECIDED -> state != ReceiptState.WAITING_APPROVAL;
        };
    }
}
