package io.actiongate.cli;

/**
 * Exit codes shared by every command (README.md, "Exit codes"): 0 success, 1 a runtime failure, 2 a usage error,
 * then what single commands define ({@code status}/{@code decide}: 3 not found; {@code topics create}: 4 drift).
 */
public final class ExitCodes {

    public static final int OK = 0;
    /** A runtime failure: bad configuration, unreachable or refusing cluster, failed startup, a role that stopped. */
    public static final int ERROR = 1;
    /** A usage error: an unknown command or option, a missing or malformed argument (nothing was attempted). */
    public static final int USAGE = 2;
    /** The command worked but found existing state that differs from what it expects (topic drift). */
    public static final int DRIFT = 4;

    private ExitCodes() {
    }
}
