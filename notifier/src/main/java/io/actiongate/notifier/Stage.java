package io.actiongate.notifier;

import java.util.Locale;

/** The two notices of one waiting period of an action: each is sent at most once. */
public enum Stage {
    /** As soon as the action waits for approval. */
    FIRST,
    /** Before the approval deadline (the route's {@code remind_before_ms}, or {@code notifier.reminder.before}). */
    REMINDER;

    /** The name in notice ids, metrics and the JSON webhook's {@code stage}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
