package io.actiongate.cli.commands;

import io.actiongate.cli.ExitCodes;

/**
 * An expected failure of an operator command: its message is the one line the operator sees, {@link #exitCode()}
 * the process exit code. No stack trace is printed for it unless the root command runs with {@code --verbose}.
 */
public class CommandFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Generic failure. */
    public static final int FAILED = ExitCodes.ERROR;
    /** The named thing does not exist (e.g. {@code status} of an unknown action). */
    public static final int NOT_FOUND = ExitCodes.NOT_FOUND;

    private final int exitCode;

    public CommandFailure(String message) {
        this(message, FAILED, null);
    }

    public CommandFailure(String message, Throwable cause) {
        this(message, FAILED, cause);
    }

    public CommandFailure(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
