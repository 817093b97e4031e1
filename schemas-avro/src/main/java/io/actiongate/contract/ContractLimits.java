package io.actiongate.contract;

import java.util.regex.Pattern;

/**
 * The limits of docs/contract.md, in one place: the summary's length, the default input size and the shape of
 * {@code task_id} and {@code tool_call_id}. The client, the CLI, the node's HTTP API, the MCP gateway and the gate
 * read them here; {@code ContractLimitsDocTest} checks them against the contract's text, and architecture-tests'
 * {@code ContractLimitsRuleTest} refuses a copy of one anywhere else.
 *
 * <p>Each value is assigned in the static initializer rather than in its declaration, so none is a compile-time
 * constant: javac copies a constant's value into every class that names it, and the bytecode of a reader would then
 * be the bytecode of a copy, which the architecture rule could not tell apart.
 */
public final class ContractLimits {

    /**
     * The longest summary, in {@link String#length()} units: "at most {@code gate.summary.max.chars} (280)
     * characters" (section 3). The gate's configuration may lower it, never raise it.
     */
    public static final int SUMMARY_MAX_CHARS;

    /** The characters of a {@code task_id} or {@code tool_call_id}, as a regular expression's character class. */
    public static final String ID_CHARACTERS;

    /** The longest {@code task_id} or {@code tool_call_id}, in characters. */
    public static final int ID_MAX_CHARS;

    /**
     * The shape of a {@code task_id} and a {@code tool_call_id} (section 2, reason code {@code INVALID_IDENTIFIER}):
     * {@link #ID_CHARACTERS}, 1 to {@link #ID_MAX_CHARS} of them. {@code /} is not among them, so the action key
     * splits at its one {@code /}.
     */
    public static final Pattern ID_PATTERN;

    /**
     * The largest {@code input_json}, in UTF-8 bytes, of a tool whose descriptor sets no positive
     * {@code max_input_bytes}: the default of {@code gate.max.input.bytes.default} (section 3; above it
     * {@code INPUT_TOO_LARGE}).
     */
    public static final int DEFAULT_MAX_INPUT_BYTES;

    static {
        SUMMARY_MAX_CHARS = 280;
        ID_CHARACTERS = "[A-Za-z0-9._:-]";
        ID_MAX_CHARS = 128;
        ID_PATTERN = Pattern.compile(ID_CHARACTERS + "{1," + ID_MAX_CHARS + "}");
        DEFAULT_MAX_INPUT_BYTES = 65_536;
    }

    private ContractLimits() {
    }
}
