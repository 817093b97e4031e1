package io.actiongate.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Model.CommandSpec;

/**
 * Exit codes shared by every command (docs/operating.md, "Exit codes"): 0 success, 1 a runtime failure, 2 a usage
 * error, then what single commands define ({@code status}/{@code decide}: 3 not found; {@code topics create}: 4
 * drift; {@code propose}: 5 rejected, 6 identity conflict, 7 no receipt in time). Each number means one thing, and a
 * command's help lists its codes from here ({@link Own}), so the help cannot say another number than the command
 * returns.
 */
public final class ExitCodes {

    public static final int OK = 0;
    /** A runtime failure: bad configuration, unreachable or refusing cluster, failed startup, a role that stopped. */
    public static final int ERROR = 1;
    /** A usage error: an unknown command or option, a missing or malformed argument (nothing was attempted). */
    public static final int USAGE = 2;
    /** {@code status} / {@code decide}: the action does not exist. */
    public static final int NOT_FOUND = 3;
    /** The command worked but found existing state that differs from what it expects (topic drift). */
    public static final int DRIFT = 4;
    /** {@code propose}: the gate's first receipt is {@code REJECTED}. */
    public static final int REJECTED = 5;
    /** {@code propose}: the key already holds another action (identity conflict). */
    public static final int CONFLICT = 6;
    /** {@code propose}: no receipt and no conflict arrived within {@code --wait}. */
    public static final int NO_RECEIPT = 7;

    /** What each code means, in the words of the help and of docs/operating.md's table. */
    private static final Map<Integer, String> MEANINGS = Map.of(
            OK, "success",
            ERROR, "runtime failure (configuration, cluster, any other error)",
            USAGE, "usage error (nothing was attempted)",
            NOT_FOUND, "the action does not exist",
            DRIFT, "a topic exists but differs from its specification (DRIFT)",
            REJECTED, "the gate's first receipt is REJECTED",
            CONFLICT, "identity conflict: the call id already holds another action",
            NO_RECEIPT, "no receipt within --wait (the proposal was published)");

    private ExitCodes() {
    }

    /** The meaning of {@code code}, as the help prints it. */
    public static String meaning(int code) {
        String meaning = MEANINGS.get(code);
        if (meaning == null) {
            throw new IllegalArgumentException("no exit code " + code);
        }
        return meaning;
    }

    /** Picocli's exit-code list of {@code codes} (0, 1 and 2 first, which every command has). */
    static Map<String, String> list(int... codes) {
        Map<String, String> list = new LinkedHashMap<>();
        for (int code : new int[] {OK, ERROR, USAGE}) {
            list.put(String.format("%3d", code), meaning(code));
        }
        for (int code : codes) {
            list.put(String.format("%3d", code), meaning(code));
        }
        return list;
    }

    /**
     * A command that returns codes of its own besides 0, 1 and 2: {@link Main} lists them, from this class, in the
     * command's help section "Exit codes:".
     */
    public interface Own {
        /** The codes this command returns besides {@link #OK}, {@link #ERROR} and {@link #USAGE}. */
        int[] ownExitCodes();
    }

    /** Fills the "Exit codes:" help section of {@code spec} and of every command below it. */
    static void listInHelp(picocli.CommandLine cl) {
        CommandSpec spec = cl.getCommandSpec();
        int[] own = spec.userObject() instanceof Own o ? o.ownExitCodes() : new int[0];
        spec.usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(list(own));
        cl.getSubcommands().values().forEach(ExitCodes::listInHelp);
    }
}
