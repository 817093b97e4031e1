package io.actiongate.approver.stepup;

/** A step-up verification failed; the message is safe to log (never a code or a signature). */
public final class StepUpException extends Exception {

    private static final long serialVersionUID = 1L;

    public StepUpException(String message) {
        super(message);
    }
}
