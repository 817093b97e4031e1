package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The open-loop schedule's arithmetic on a fake clock: due times, catching up, latency from the scheduled time. */
class OpenLoopScheduleTest {

    private static final long MS = 1_000_000L;

    /** A clock that moves only when told to, or when someone sleeps until a later time. */
    private static final class FakeClock implements OpenLoopSchedule.Clock {
        long now = 5_000 * MS;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleepUntil(long deadline) {
            now = Math.max(now, deadline);
        }
    }

    @Test
    void shouldSendEachActionAtItsDueTimeWhenTheSenderKeepsUp() throws Exception {
        FakeClock clock = new FakeClock();
        long start = clock.now;
        List<Long> sendTimes = new ArrayList<>();

        OpenLoopSchedule.Sent sent = new OpenLoopSchedule(100, clock).run(5, i -> sendTimes.add(clock.now));

        assertThat(sent.scheduledAt()).containsExactly(start, start + 10 * MS, start + 20 * MS, start + 30 * MS,
                start + 40 * MS);
        assertThat(sent.sentAt()).containsExactly(sent.scheduledAt());
        assertThat(sendTimes).containsExactly(start, start + 10 * MS, start + 20 * MS, start + 30 * MS,
                start + 40 * MS);
        assertThat(sent.achievedRate()).isCloseTo(100, within(1e-9));
        assertThat(sent.maxLagNanos()).isZero();
    }

    @Test
    void shouldCountTheTimeALateSenderMadeAnActionWaitInItsLatency() throws Exception {
        FakeClock clock = new FakeClock();
        long start = clock.now;
        // the send of action 2 blocks for 35 ms (a full buffer, a descheduled thread): 3, 4 and 5 fall behind
        OpenLoopSchedule.Sent sent = new OpenLoopSchedule(100, clock).run(7, i -> {
            if (i == 2) {
                clock.now += 35 * MS;
            }
        });

        // none skipped: the overdue ones go at once, then the schedule resumes
        assertThat(sent.size()).isEqualTo(7);
        assertThat(sent.sentAt()).containsExactly(start, start + 10 * MS, start + 20 * MS, start + 55 * MS,
                start + 55 * MS, start + 55 * MS, start + 60 * MS);
        assertThat(sent.maxLagNanos()).isEqualTo(25 * MS);

        // every action completes 1 ms after its actual send
        long[] doneAt = new long[7];
        for (int i = 0; i < 7; i++) {
            doneAt[i] = sent.sentAt()[i] + MS;
        }
        long[] fromSchedule = OpenLoopSchedule.latencies(sent.scheduledAt(), doneAt);
        long[] fromSend = OpenLoopSchedule.latencies(sent.sentAt(), doneAt);
        // action 3 was due at 30 ms and done at 56 ms: 26 ms from its schedule, though only 1 ms from its send
        assertThat(fromSchedule[3]).isEqualTo(26 * MS);
        assertThat(fromSend[3]).isEqualTo(MS);
        assertThat(fromSchedule).containsExactly(MS, MS, MS, 26 * MS, 16 * MS, 6 * MS, MS);
        assertThat(sent.sortedLatencies(doneAt)).containsExactly(MS, MS, MS, MS, 6 * MS, 16 * MS, 26 * MS);
        // the sends still span the scheduled 60 ms, so the achieved rate is the target's
        assertThat(sent.achievedRate()).isCloseTo(100, within(1e-9));
    }

    @Test
    void shouldReportTheLowerRateOfASenderThatNeverCatchesUp() throws Exception {
        FakeClock clock = new FakeClock();
        // every send takes 12.5 ms against a 10 ms interval
        OpenLoopSchedule.Sent sent = new OpenLoopSchedule(100, clock).run(5, i -> clock.now += 12_500_000L);

        assertThat(sent.achievedRate()).isCloseTo(80, within(1e-9));
        assertThat(sent.maxLagNanos()).isEqualTo(10 * MS);
        assertThat(Math.abs(sent.achievedRate() / 100 - 1)).isGreaterThan(OpenLoopPart.RATE_TOLERANCE);
    }

    @Test
    void shouldLeaveActionsWithoutAReceiptOutOfTheLatencies() throws Exception {
        FakeClock clock = new FakeClock();
        OpenLoopSchedule.Sent sent = new OpenLoopSchedule(50, clock).run(3, i -> {
        });
        long[] doneAt = {sent.scheduledAt()[0] + 7 * MS, 0, sent.scheduledAt()[2] + 3 * MS};

        assertThat(sent.sortedLatencies(doneAt)).containsExactly(3 * MS, 7 * MS);
        assertThatThrownBy(() -> sent.sortedLatencies(new long[2])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRunEachRateForFifteenSecondsOrAThousandActionsWithinTheBound() {
        OpenLoopPart.Sizes sizes = OpenLoopPart.Sizes.DEFAULT;

        assertThat(sizes.actionsAt(250)).isEqualTo(3_750); // 15 s
        assertThat(sizes.actionsAt(40)).isEqualTo(1_000); // 25 s
        assertThat(sizes.actionsAt(5)).isEqualTo(600); // bounded at 120 s
        assertThatThrownBy(() -> new OpenLoopSchedule(0, new FakeClock()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
