package io.actiongate.cli;

/** Exit codes shared by every command. */
public final class ExitCodes {

    public static final int OK = 0;
    /** Any error: bad arguments or configuration, unreachable cluster, failed startup. */
    public static final int ERROR = 1;
    /** The command worked but found existing state that differs from what it expects (topic drift). */
    public static final int DRIFT = 2;

    private ExitCodes() {
    }
}
