package io.actiongate.notifier;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When a notice of a waiting action is due. The first notice as soon as the action waits; the reminder at
 * {@code deadline - remindBefore}, only when the first notice was claimed before that time (a first notice sent
 * late, say after the notifier was down, is the only one) and {@code remindBefore} is positive. Nothing at or after
 * the deadline: the gate expires the action then.
 */
final class NoticePlan {

    private NoticePlan() {
    }

    /**
     * @param firstClaimedAt when the first notice was claimed (by any instance), or null when it was not
     * @param reminderClaimed whether the reminder was claimed
     */
    static Optional<Stage> due(Instant now, Instant deadline, Duration remindBefore, Instant firstClaimedAt,
                               boolean reminderClaimed) {
        if (!now.isBefore(deadline)) {
            return Optional.empty();
        }
        if (firstClaimedAt == null) {
            return Optional.of(Stage.FIRST);
        }
        if (reminderClaimed || remindBefore.isZero() || remindBefore.isNegative()) {
            return Optional.empty();
        }
        Instant remindAt = deadline.minus(remindBefore);
        return !now.isBefore(remindAt) && firstClaimedAt.isBefore(remindAt) ? Optional.of(Stage.REMINDER)
                : Optional.empty();
    }
}
