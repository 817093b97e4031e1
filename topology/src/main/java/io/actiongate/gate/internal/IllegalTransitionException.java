package io.actiongate.gate.internal;

/**
 * A move the lifecycle does not allow ({@link Phase#next()}): a bug or a corrupted state, never a reason to change
 * the action. Thrown by {@link ActionState#to}; {@link Lifecycle#atomically} undoes the record, dead-letters it and
 * counts it. Its message names phases only, never record content.
 */
public final class IllegalTransitionException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final Phase from;
    private final Phase to;

    public IllegalTransitionException(Phase from, Phase to) {
        this(from, to, "illegal transition " + from + " -> " + to);
    }

    IllegalTransitionException(Phase from, Phase to, String message) {
        super(message);
        this.from = from;
        this.to = to;
    }

    public Phase from() {
        return from;
    }

    public Phase to() {
        return to;
    }
}
