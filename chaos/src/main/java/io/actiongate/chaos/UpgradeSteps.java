package io.actiongate.chaos;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings and steps of an upgrade run ({@code actiongate chaos --upgrade-from REF}, docs/chaos.md, "Rolling
 * upgrade"): what is put in flight before each role is replaced, and how many of each.
 *
 * @param each how many actions of each in-flight kind a preparation submits
 */
record UpgradeSteps(int each) {

    /** Load before the first preparation: the previous release serves the storm's mix alone. */
    static final Duration WARMUP = Duration.ofSeconds(30);
    /** Load after the last replacement, on this build alone. */
    static final Duration TAIL = Duration.ofSeconds(30);
    /** Load between two replacements: every pair of releases side by side serves for a while. */
    static final Duration BETWEEN_STEPS = Duration.ofSeconds(10);
    /** How long a preparation waits for its actions to reach their state. */
    static final Duration PREPARE_TIMEOUT = Duration.ofSeconds(90);
    /**
     * How long the executors stay paused for actions to be approved and reserved before the first executor is
     * replaced: well inside the run's lease ({@link #NODE_SETTINGS}), which must also cover that replacement.
     */
    static final Duration PAUSE_TIMEOUT = Duration.ofSeconds(45);
    /**
     * How long the executors then stay paused, at most, for their group to let them go (their session timeout, 6 s,
     * and the coordinator's check): the previous release's executor, stopped while it commits a batch, could commit it
     * without dispatching it, and a member the group let go has its commits refused. Also inside the lease.
     */
    static final Duration GROUP_EXPIRY_TIMEOUT = Duration.ofSeconds(30);
    /** The provider's answer to the first dispatch of a retry-due or expiring action: 429 with this Retry-After. */
    static final String RETRY_AFTER_SECONDS = "40";
    /** How long the provider holds an at-provider action's request (within the run's response timeout). */
    static final Duration PROVIDER_HOLD = Duration.ofSeconds(10);
    /** Lookups of a reconciler-asking action that fail before the provider answers. */
    static final int FAILED_LOOKUPS = 10;
    /** Reads proposed to the previous release's gate in the rollback drill. */
    static final int ROLLBACK_READS = 5;

    /**
     * Node settings of an upgrade run on top of the chaos run's: a lease longer than the executors' pause and the
     * first executor's replacement together (up to {@link #PAUSE_TIMEOUT} and {@link #GROUP_EXPIRY_TIMEOUT} plus a
     * 30 s graceful stop, and a backlog
     * on a loaded two-core machine: with 30 s, actions reserved while the executors were paused were never
     * dispatched and ended NOT_APPLIED), a response timeout that lets a request the provider holds outlast an
     * executor's replacement, a Retry-After cap above the 429s' Retry-After, and lookups enough for a
     * reconciler-asking action to be asked across the reconciler's replacement.
     */
    static final Map<String, String> NODE_SETTINGS;

    static {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("gate.lease.duration", "180s");
        m.put("gate.dispatch.timeout", "10s");
        m.put("connectors.webhook.response-timeout-ms", "15000");
        m.put("connectors.webhook.retry-after-cap-seconds", "120");
        m.put("reconciler.max.lookups", "40");
        NODE_SETTINGS = java.util.Collections.unmodifiableMap(m);
    }

    /** Six of each in a run of five minutes or more, three in a shorter one (the system-tier IT). */
    static UpgradeSteps forDuration(Duration duration) {
        return new UpgradeSteps(duration.compareTo(Duration.ofMinutes(5)) >= 0 ? 6 : 3);
    }

    /** The plan, printed at the start and kept as {@code fault-schedule.txt}. */
    static String describe(ReleaseBuild.Built previous, int gates) {
        StringBuilder out = new StringBuilder("upgrade plan: every role starts as " + previous.ref() + " ("
                + previous.shortCommit() + "); after " + WARMUP.toSeconds() + " s of load, one step after the other, "
                + BETWEEN_STEPS.toSeconds() + " s of load between steps:\n");
        out.append("  prepare: actions retry due after a 429 (Retry-After ").append(RETRY_AFTER_SECONDS)
                .append(" s), expiring (approval valid ").append(Load.SHORT_APPROVAL.toSeconds())
                .append(" s, then the same 429), waiting for a human\n");
        for (int i = 1; i <= gates; i++) {
            out.append("  replace gate-").append(i).append('\n');
        }
        out.append("  approve half of those waiting for a human (the load's key)\n");
        out.append("  prepare: requests the provider holds ").append(PROVIDER_HOLD.toSeconds())
                .append(" s; executors paused while actions are approved and reserved, and until their group let "
                        + "them go\n");
        out.append("  replace executor-1 (executor-2 resumed), replace executor-2\n");
        out.append("  prepare: dispatches reset after applying, lookups failing ").append(FAILED_LOOKUPS)
                .append(" times (UNKNOWN, the reconciler asking)\n");
        out.append("  replace reconciler\n");
        out.append("  replace approver-1, approver-2 (--cluster)\n");
        out.append("  hand the rest of those waiting for a human to the approval service's people\n");
        out.append("  replace mcp-gateway\n");
        out.append("  load for ").append(TAIL.toSeconds()).append(" s more; settle; rollback drill: gate-1 back on ")
                .append(previous.ref()).append(", alone, ").append(ROLLBACK_READS).append(" reads\n");
        return out.toString();
    }
}
