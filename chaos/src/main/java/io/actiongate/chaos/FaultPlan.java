package io.actiongate.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The fault schedule of one run: a pure function of the seed, the duration and the cluster shape, so the same seed
 * prints and injects the same schedule. The first faults walk through every kind in a seeded order (so even a short
 * run covers each); the rest are drawn at random.
 */
record FaultPlan(long seed, Duration duration, List<Step> steps) {

    /** What a fault does. */
    enum Kind {
        KILL_GATE, KILL_EXECUTOR, KILL_RECONCILER, KILL_BROKER, PAUSE_EXECUTOR, ADD_GATE, REMOVE_GATE,
        PROVIDER_TIMEOUT_AFTER_APPLY, PROVIDER_RESET_AFTER_APPLY, PROVIDER_5XX, PROVIDER_429
    }

    /**
     * One fault at {@code atMs} after the load starts, against instance {@code target} (an index among the
     * instances of its role alive at that moment, modulo their count), lasting {@code downMs} before the restart or
     * resume (0 for provider faults, which last {@code downMs} requests' worth: see {@link #providerRequests()}).
     */
    record Step(int index, long atMs, Kind kind, int target, long downMs) {
        /** Requests a provider fault applies to. */
        int providerRequests() {
            return 1 + target % 3;
        }

        String describe() {
            return switch (kind) {
                case KILL_GATE, KILL_EXECUTOR -> "kill -9 " + role() + " #" + target + ", restart after " + downMs
                        + " ms";
                case KILL_RECONCILER, KILL_BROKER -> "kill -9 " + role() + ", restart after " + downMs + " ms";
                case PAUSE_EXECUTOR -> "SIGSTOP executor #" + target + " for " + downMs + " ms, then SIGCONT";
                case ADD_GATE -> "start one more gate instance";
                case REMOVE_GATE -> "stop gate #" + target + " (SIGTERM, graceful)";
                default -> kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " for the next "
                        + providerRequests() + " request(s)";
            };
        }

        private String role() {
            return switch (kind) {
                case KILL_GATE -> "gate";
                case KILL_EXECUTOR -> "executor";
                case KILL_RECONCILER -> "reconciler";
                default -> "broker";
            };
        }
    }

    /**
     * @param spacing mean time between faults; each fault lands in its own slot of that width, at a seeded offset
     * @param sessionTimeoutMs the executors' consumer session timeout: a pause lasts past it
     */
    static FaultPlan generate(long seed, Duration duration, Duration spacing, long sessionTimeoutMs) {
        Random random = new Random(seed);
        List<Kind> firstRound = new ArrayList<>(List.of(Kind.values()));
        Collections.shuffle(firstRound, random);
        List<Step> steps = new ArrayList<>();
        long slot = Math.max(1_000, spacing.toMillis());
        long end = duration.toMillis() - slot / 2; // the last fault leaves time to recover before the load stops
        int i = 0;
        for (long start = slot / 2; start < end; start += slot) {
            Kind kind = i < firstRound.size() ? firstRound.get(i) : Kind.values()[random.nextInt(Kind.values().length)];
            long at = start + (long) (random.nextDouble() * slot * 0.4);
            int target = random.nextInt(3);
            long down = switch (kind) {
                case PAUSE_EXECUTOR -> sessionTimeoutMs + 2_000 + random.nextInt(3_000);
                case KILL_BROKER -> 1_000 + random.nextInt(4_000);
                case KILL_GATE, KILL_EXECUTOR, KILL_RECONCILER -> 500 + random.nextInt(5_000);
                default -> 0;
            };
            steps.add(new Step(i, at, kind, target, down));
            i++;
        }
        return new FaultPlan(seed, duration, List.copyOf(steps));
    }

    String describe() {
        StringBuilder out = new StringBuilder("fault schedule (seed " + seed + ", " + steps.size() + " faults over "
                + duration.toSeconds() + " s of load):\n");
        for (Step s : steps) {
            out.append(String.format(java.util.Locale.ROOT, "  #%-3d t+%7.1fs  %s%n", s.index(), s.atMs() / 1000.0,
                    s.describe()));
        }
        return out.toString();
    }
}
