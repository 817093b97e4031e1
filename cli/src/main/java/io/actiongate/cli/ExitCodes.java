package io.actiongate.cli;

/**
 * Exit codes shared by every command (README.md, "Exit codes"): 0 success, 1 a runtime failure, 2 a usage error,
 * then what single commands define ({@code status}/{@code decide}: 3 not found; {@code topics create}: 4 drift;
 * {@code propose}: 5 rejected, 6 identity conflict, 7 no receipt in time). Each number means one thing.
 */
public final class ExitCodes {

    public static final int OK = 0;
    /** A runtime failure: bad configuration, unreachable or refusing cluster, failed startup, a role that stopped. */
    public static final int ERROR = 1;
    /** A usage error: an unknown command or option, a missing or malformed argument (nothing was attempted). */
    public static final int USAGE = 2;
    /** The command worked but found existing state that differs from what it expects (topic drift). */
    public static final int DRIFT = 4;
    /** {@code propose}: the gate's first receipt is {@code REJECTED}. */
    public static final int REJECTED = 5;
    /** {@code propose}: the key already holds another action (identity conflict). */
    public static final int CONFLICT = 6;
    /** {@code propose}: no receipt and no conflict arrived within {@code --wait}. */
    public static final int NO_RECEIPT = 7;

    private ExitCodes() {
    }
}
