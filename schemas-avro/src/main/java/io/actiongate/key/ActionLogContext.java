package io.actiongate.key;

import org.slf4j.MDC;

/**
 * Puts the action key into the logging context ({@link MDC} key {@value #MDC_KEY}) while one action is handled, so
 * every log line of that work carries it (a JSON log line has it under {@code mdc}). Only a key made of valid ids
 * is set: a malformed key is attacker-controlled text and stays out of the logs. The previous value is restored on
 * close, so scopes nest.
 *
 * <pre>{@code
 * ActionLogContext.Scope logged = ActionLogContext.enter(taskId, toolCallId);
 * try (logged) { ... }
 * }</pre>
 * (the scope is declared before the {@code try}: a resource the block never names is what {@code -Xlint:try} warns
 * of, and this scope is used only by being open).
 */
public final class ActionLogContext {

    public static final String MDC_KEY = "action_key";

    private ActionLogContext() {
    }

    /** A scope that restores the logging context when closed. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /** The scope of the action {@code taskId/toolCallId}; a no-op when either id is invalid. */
    public static Scope enter(String taskId, String toolCallId) {
        return ActionKey.isValid(taskId, toolCallId) ? set(ActionKey.format(taskId, toolCallId)) : () -> { };
    }

    /** The scope of the action whose key is {@code actionKey}; a no-op when it is not a valid action key. */
    public static Scope enter(String actionKey) {
        return actionKey != null && ActionKey.tryParse(actionKey).isPresent() ? set(actionKey) : () -> { };
    }

    private static Scope set(String key) {
        String previous = MDC.get(MDC_KEY);
        MDC.put(MDC_KEY, key);
        return () -> {
            if (previous == null) {
                MDC.remove(MDC_KEY);
            } else {
                MDC.put(MDC_KEY, previous);
            }
        };
    }
}
