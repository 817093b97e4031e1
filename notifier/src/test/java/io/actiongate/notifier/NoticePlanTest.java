package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class NoticePlanTest {

    static final Instant SINCE = Instant.parse("2026-01-01T00:00:00Z");
    static final Instant DEADLINE = SINCE.plus(Duration.ofHours(24));
    static final Duration HOUR = Duration.ofHours(1);

    private static Instant at(Duration afterSince) {
        return SINCE.plus(afterSince);
    }

    @Test
    void shouldDueTheFirstNoticeAsSoonAsTheActionWaitsUntilTheDeadline() {
        assertThat(NoticePlan.due(SINCE, DEADLINE, HOUR, null, false)).contains(Stage.FIRST);
        assertThat(NoticePlan.due(DEADLINE.minusMillis(1), DEADLINE, HOUR, null, false)).contains(Stage.FIRST);
        assertThat(NoticePlan.due(DEADLINE, DEADLINE, HOUR, null, false)).isEmpty();
    }

    @Test
    void shouldDueTheReminderFromDeadlineMinusRemindBeforeOnce() {
        Instant first = SINCE;
        assertThat(NoticePlan.due(at(Duration.ofHours(22)), DEADLINE, HOUR, first, false)).isEmpty();
        assertThat(NoticePlan.due(at(Duration.ofHours(23)).minusMillis(1), DEADLINE, HOUR, first, false)).isEmpty();
        assertThat(NoticePlan.due(at(Duration.ofHours(23)), DEADLINE, HOUR, first, false)).contains(Stage.REMINDER);
        assertThat(NoticePlan.due(at(Duration.ofHours(23)), DEADLINE, HOUR, first, true)).isEmpty();
        assertThat(NoticePlan.due(DEADLINE, DEADLINE, HOUR, first, false)).isEmpty();
    }

    @Test
    void shouldSkipTheReminderWhenTheFirstNoticeWentInItsWindowOrNoneIsWanted() {
        Instant late = at(Duration.ofHours(23).plusMinutes(10));
        assertThat(NoticePlan.due(late.plusSeconds(1), DEADLINE, HOUR, late, false)).isEmpty();
        assertThat(NoticePlan.due(at(Duration.ofHours(23)), DEADLINE, Duration.ZERO, SINCE, false)).isEmpty();
        // a reminder wanted earlier than the action began waiting: the first notice is all there is
        assertThat(NoticePlan.due(at(Duration.ofHours(1)), DEADLINE, Duration.ofHours(48), SINCE, false)).isEmpty();
    }
}
