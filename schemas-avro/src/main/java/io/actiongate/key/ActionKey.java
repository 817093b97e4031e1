package io.actiongate.key;

import java.util.Objects;
import java.util.Optional;

import io.actiongate.contract.ContractLimits;

/**
 * The action key {@code task_id + "/" + tool_call_id} (docs/contract.md section 2). Both ids match
 * {@link ContractLimits#ID_PATTERN}; the separator cannot appear inside either id, so parsing is unambiguous.
 */
public record ActionKey(String taskId, String toolCallId) {

    public static final char SEPARATOR = '/';

    public ActionKey {
        requireValidId("task_id", taskId);
        requireValidId("tool_call_id", toolCallId);
    }

    /** Whether {@code id} is a valid task or tool-call id. */
    public static boolean isValidId(String id) {
        return id != null && ContractLimits.ID_PATTERN.matcher(id).matches();
    }

    private static void requireValidId(String field, String id) {
        if (!isValidId(id)) {
            throw new IllegalArgumentException(field + " must match " + ContractLimits.ID_PATTERN.pattern());
        }
    }

    /** Parses {@code task_id/tool_call_id}; throws {@link IllegalArgumentException} when it is not one. */
    public static ActionKey parse(String key) {
        Objects.requireNonNull(key, "key");
        int slash = key.indexOf(SEPARATOR);
        if (slash < 0) {
            throw new IllegalArgumentException("an action key is task_id/tool_call_id");
        }
        return new ActionKey(key.substring(0, slash), key.substring(slash + 1));
    }

    /** Parses without throwing: empty for anything that is not a valid action key. */
    public static Optional<ActionKey> tryParse(String key) {
        if (key == null) {
            return Optional.empty();
        }
        int slash = key.indexOf(SEPARATOR);
        if (slash < 0) {
            return Optional.empty();
        }
        String task = key.substring(0, slash);
        String call = key.substring(slash + 1);
        return isValidId(task) && isValidId(call) ? Optional.of(new ActionKey(task, call)) : Optional.empty();
    }

    /**
     * The key text of two ids, valid or not, without validating them: for comparing the ids a record carries with
     * its record key, and for naming a record whose ids may be invalid. For valid ids it equals
     * {@code new ActionKey(task, call).toString()}. The one place besides {@link #toString()} that joins ids.
     */
    public static String format(String task, String call) {
        return task + SEPARATOR + call;
    }

    /** Whether {@code task} and {@code call} form a valid key, without building one. */
    public static boolean isValid(String task, String call) {
        return isValidId(task) && isValidId(call);
    }

    @Override
    public String toString() {
        return format(taskId, toolCallId);
    }
}
