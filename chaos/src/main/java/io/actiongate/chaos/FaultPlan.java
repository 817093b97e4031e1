package io.actiongate.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The fault schedule of one run: a pure function of the seed, the duration and the cluster shape, so the same seed
 * prints and injects the same schedule. The first faults walk through every kind in a seeded order (so even a short
 * run covers each; a cluster run walks through them twice); the rest are drawn at random.
 */
record FaultPlan(long seed, Duration duration, List<Step> steps) {

    /** What a fault does. */
    enum Kind {
        KILL_GATE, KILL_EXECUTOR, KILL_RECONCILER, KILL_BROKER, PAUSE_EXECUTOR, ADD_GATE, REMOVE_GATE,
        PROVIDER_TIMEOUT_AFTER_APPLY, PROVIDER_RESET_AFTER_APPLY, PROVIDER_5XX, PROVIDER_429,
        // cluster mode only (appended, so a single-broker seed draws the same schedule as before)
        KILL_CHANGELOG_LEADER, KILL_TXN_COORDINATOR, KILL_CONTROLLER, ROLLING_RESTART, PAUSE_BROKER,
        // the approval service runs in cluster mode only
        KILL_APPROVER,
        // cluster mode with --network-namespaces only
        PARTITION_FROM_PEERS, PARTITION_ISOLATED,
        // every mode, with the MCP gateway in the run (appended: a schedule drawn without it stays as it was)
        KILL_GATEWAY;

        /** The kinds of the single-broker run. */
        static final List<Kind> SINGLE = List.of(KILL_GATE, KILL_EXECUTOR, KILL_RECONCILER, KILL_BROKER,
                PAUSE_EXECUTOR, ADD_GATE, REMOVE_GATE, PROVIDER_TIMEOUT_AFTER_APPLY, PROVIDER_RESET_AFTER_APPLY,
                PROVIDER_5XX, PROVIDER_429);

        /** Faults that need the nodes in network namespaces of their own. */
        boolean needsNamespaces() {
            return this == PARTITION_FROM_PEERS || this == PARTITION_ISOLATED;
        }

        /** Faults that only a cluster of several brokers can have. */
        boolean clusterOnly() {
            return !SINGLE.contains(this) && this != KILL_GATEWAY;
        }
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
                case KILL_GATEWAY -> "kill -9 the MCP gateway (calls in flight lose their answer; the host "
                        + "redelivers them), restart after " + downMs + " ms";
                case KILL_CHANGELOG_LEADER -> "kill -9 the leader of gate changelog partition #" + target
                        + " (Admin API at fault time), restart after " + downMs + " ms";
                case KILL_TXN_COORDINATOR -> "kill -9 the transaction coordinator of gate transactional id #"
                        + target + " (Admin API at fault time), restart after " + downMs + " ms";
                case KILL_CONTROLLER -> "kill -9 the active controller (describeMetadataQuorum), restart after "
                        + downMs + " ms";
                case ROLLING_RESTART -> "rolling restart of every broker (SIGTERM, wait ready, " + downMs
                        + " ms between nodes)";
                case PAUSE_BROKER -> "SIGSTOP broker node #" + target + " for " + downMs
                        + " ms (past the broker session timeout), then SIGCONT";
                case KILL_APPROVER -> "kill -9 the approval service replica serving the next decision post, "
                        + approverKillDelayMs() + " ms after it was sent, restart after " + downMs + " ms";
                case PARTITION_FROM_PEERS -> "cut broker node #" + target + " off from its peers (blackhole routes "
                        + "both ways; clients still reach every node) for " + downMs + " ms";
                case PARTITION_ISOLATED -> "cut broker node #" + target + " off from everyone (its bridge port "
                        + "down: peers and clients) for " + downMs + " ms";
                case PAUSE_EXECUTOR -> "SIGSTOP executor #" + target + " for " + downMs + " ms, then SIGCONT";
                case ADD_GATE -> "start one more gate instance";
                case REMOVE_GATE -> "stop gate #" + target + " (SIGTERM, graceful)";
                default -> kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " for the next "
                        + providerRequests() + " request(s)";
            };
        }

        /** How long after the decision post a {@code KILL_APPROVER} kills the replica serving it. */
        long approverKillDelayMs() {
            return 5L + 20L * target;
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
        return generate(seed, duration, spacing, sessionTimeoutMs, false);
    }

    /**
     * @param cluster a three-node cluster: the cluster faults join the draw (kill the changelog leader, the
     *                transaction coordinator, the active controller; a rolling restart; a paused broker)
     */
    static FaultPlan generate(long seed, Duration duration, Duration spacing, long sessionTimeoutMs,
                              boolean cluster) {
        return generate(seed, duration, spacing, sessionTimeoutMs, cluster, false);
    }

    /**
     * @param partitions the nodes run in network namespaces of their own ({@link NetworkNamespaces}): the two
     *                   partition faults join the cluster draw
     */
    static FaultPlan generate(long seed, Duration duration, Duration spacing, long sessionTimeoutMs,
                              boolean cluster, boolean partitions) {
        return generate(seed, duration, spacing, sessionTimeoutMs, cluster, partitions, false);
    }

    /**
     * @param gateway the MCP gateway runs (every run since it joined): {@code KILL_GATEWAY} joins the draw in both
     *                modes; without it a seed draws the schedule of the reports committed before
     */
    static FaultPlan generate(long seed, Duration duration, Duration spacing, long sessionTimeoutMs,
                              boolean cluster, boolean partitions, boolean gateway) {
        Random random = new Random(seed);
        List<Kind> kinds = new ArrayList<>(!cluster ? Kind.SINGLE : java.util.Arrays.stream(Kind.values())
                .filter(k -> k != Kind.KILL_GATEWAY && (partitions || !k.needsNamespaces())).toList());
        if (gateway) {
            kinds.add(Kind.KILL_GATEWAY);
        }
        List<Kind> firstRound = new ArrayList<>(kinds);
        Collections.shuffle(firstRound, random);
        if (cluster) {
            // a second seeded round: a long cluster run injects every kind at least twice
            List<Kind> second = new ArrayList<>(kinds);
            Collections.shuffle(second, random);
            firstRound.addAll(second);
        }
        List<Step> steps = new ArrayList<>();
        long slot = Math.max(1_000, spacing.toMillis());
        long end = duration.toMillis() - slot / 2; // the last fault leaves time to recover before the load stops
        int i = 0;
        for (long start = slot / 2; start < end; start += slot) {
            Kind kind = i < firstRound.size() ? firstRound.get(i) : kinds.get(random.nextInt(kinds.size()));
            long at = start + (long) (random.nextDouble() * slot * 0.4);
            int target = random.nextInt(3);
            long down = switch (kind) {
                case PAUSE_EXECUTOR -> sessionTimeoutMs + 2_000 + random.nextInt(3_000);
                case KILL_BROKER, KILL_CHANGELOG_LEADER, KILL_TXN_COORDINATOR, KILL_CONTROLLER ->
                        1_000 + random.nextInt(4_000);
                case PAUSE_BROKER, PARTITION_FROM_PEERS, PARTITION_ISOLATED ->
                        ClusterNodeMain.BROKER_SESSION_TIMEOUT_MS + 2_000 + random.nextInt(3_000);
                case ROLLING_RESTART, KILL_APPROVER, KILL_GATEWAY -> 1_000 + random.nextInt(2_000);
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
