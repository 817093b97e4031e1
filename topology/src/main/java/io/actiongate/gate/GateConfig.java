package io.actiongate.gate;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import io.actiongate.policy.ApproverPolicy;
import io.actiongate.config.DurationParser;
import io.actiongate.gate.internal.TrustedKeys;
import io.actiongate.config.CommonConfig;
import io.actiongate.contract.ContractLimits;
import io.actiongate.policy.TaskOwnership;

/**
 * Every setting of the gate role, with its documentation and validator. Durations accept {@code 60s},
 * {@code 10m}, {@code 24h}, {@code 7d}, ISO-8601 ({@code PT24H}) or plain milliseconds. The common keys
 * ({@code bootstrap.servers}, {@code topic.prefix}, {@code application.id}, {@code state.dir}, {@code kafka.*})
 * come from {@link CommonConfig}; keys starting with {@code gate.streams.} are handed to Kafka Streams with the
 * prefix removed (see {@link GateStreams}).
 */
public final class GateConfig extends CommonConfig {

    public static final String APPROVAL_TIMEOUT_CONFIG = "gate.approval.timeout";
    public static final String APPROVAL_TIMEOUT_DOC = "How long an action waits in WAITING_APPROVAL before it "
            + "becomes EXPIRED.";

    public static final String LEASE_DURATION_CONFIG = "gate.lease.duration";
    public static final String LEASE_DURATION_DOC = "Lease of a reservation: the executor must not start a "
            + "dispatch after reserved_at + this duration (lease_expires_at).";

    public static final String DISPATCH_TIMEOUT_CONFIG = "gate.dispatch.timeout";
    public static final String DISPATCH_TIMEOUT_DOC = "Grace after lease_expires_at for the outcome to arrive; "
            + "with no outcome by then the action becomes UNKNOWN (LEASE_EXPIRED) and is reconciled, never "
            + "re-dispatched.";

    public static final String RETRY_MAX_ATTEMPTS_CONFIG = "gate.retry.max.attempts";
    public static final String RETRY_MAX_ATTEMPTS_DOC = "Attempts per action in all (1 to 3). A RETRYABLE or "
            + "NOT_DISPATCHED outcome of the last attempt fails the action with RETRIES_EXHAUSTED.";

    public static final String RETRY_AFTER_CAP_CONFIG = "gate.retry.after.cap";
    public static final String RETRY_AFTER_CAP_DOC = "Longest wait for a retry: a retry_at further away than "
            + "this fails the action with RATE_LIMITED.";

    public static final String RETRY_BACKOFF_CONFIG = "gate.retry.backoff";
    public static final String RETRY_BACKOFF_DOC = "Wait before the next attempt when a retryable outcome "
            + "carries no retry_at.";

    public static final String DEDUPE_WINDOW_CONFIG = "gate.dedupe.window";
    public static final String DEDUPE_WINDOW_DOC = "How long a finished action (and each used decision_id) is "
            + "remembered. A redelivered proposal inside the window gets the stored receipt; after it, the "
            + "proposal is treated as new and needs a new approval.";

    public static final String PUNCTUATE_INTERVAL_CONFIG = "gate.punctuate.interval";
    public static final String PUNCTUATE_INTERVAL_DOC = "Wall-clock interval of the timer punctuator (approval "
            + "deadlines, retries, lease expiry, dedupe purge). An idle stream thread polls for half the shorter of "
            + "this and gate.cancel.sweep.interval (at most 5s), so a tick comes at most that late.";

    public static final String COMMIT_WHEN_DRAINED_CONFIG = "gate.commit.when.drained";
    public static final String COMMIT_WHEN_DRAINED_DOC = "Whether a stream thread commits its transaction as soon as "
            + "it has processed every record its consumer returned and one more poll, which does not wait, brings "
            + "nothing new (group commit), instead of only every gate.streams.commit.interval.ms. What the gate "
            + "writes (reservations, receipts, records on its internal hops) is readable only once committed, so "
            + "every tool host, executor and hop waits for a commit: with this on, for one commit rather than an "
            + "interval. Under load the records that arrive during a commit are committed together by the next one, "
            + "so transactions grow with the load. The commit interval still commits a thread that never drains (a "
            + "backlog). false: only the interval commits.";

    public static final String LEAVE_GROUP_ON_CLOSE_CONFIG = "gate.close.leave.group";
    public static final String LEAVE_GROUP_ON_CLOSE_DOC = "Whether a gate that stops gracefully (SIGTERM, a rolling "
            + "restart) has its stream threads leave their consumer group, so that the other instances, or the gate "
            + "restarted in its place, take over its partitions at once. Kafka Streams does not leave by default: "
            + "the partitions then wait for the group's session timeout (45 s at Kafka's default) and so do the "
            + "actions on them. false keeps Kafka Streams' behaviour, for static membership "
            + "(gate.streams.group.instance.id), where a restarted instance takes its partitions back without a "
            + "rebalance. A killed gate leaves nothing either way.";

    public static final String HANGING_CHECK_INTERVAL_CONFIG = "gate.transactions.hanging.check.interval";
    public static final String HANGING_CHECK_INTERVAL_DOC = "How often the gate asks the partitions of its topics "
            + "(the contract's topics and its own internal ones) for hanging transactions: open on a partition after "
            + "their coordinator ended or forgot them, which holds the partition's last stable offset, and so every "
            + "read_committed reader and the restoration of a gate task, back for good. Each one found is logged at "
            + "ERROR with what an operator needs to end it, and counted in actiongate_gate_hanging_transactions. 0 "
            + "turns the check off.";
    public static final String HANGING_MIN_AGE_CONFIG = "gate.transactions.hanging.min.age";
    public static final String HANGING_MIN_AGE_DOC = "How long a partition's transaction must have been open, "
            + "counted from its producer's last write there, before the check may call it hanging. Keep it above the "
            + "longest transaction timeout any producer writing the gate's topics may have: the brokers' "
            + "transaction.max.timeout.ms (Kafka's default 15 min; the gate's own transactions use 10 s). Then a "
            + "transaction the coordinator still ends is never reported, also one whose transactional id the gate's "
            + "principal may not describe.";
    public static final String CANCEL_SWEEP_INTERVAL_CONFIG = "gate.cancel.sweep.interval";
    public static final String CANCEL_SWEEP_INTERVAL_DOC = "Wall-clock interval of the sweep that cancels "
            + "actions not yet dispatched whose task or origin was cancelled or archived. Safety does not depend "
            + "on it (policy is rechecked before every reservation); it bounds how late the CANCELLED receipt is.";

    public static final String CANCEL_SWEEP_BATCH_MAX_CONFIG = "gate.cancel.sweep.batch.max";
    public static final String CANCEL_SWEEP_BATCH_MAX_DOC = "Most pending actions one cancellation sweep checks per "
            + "task; the next sweep resumes after the last one checked. A CANCELLED receipt is at most "
            + "ceil(pending / this) sweep intervals late.";

    public static final String TIMER_BATCH_MAX_CONFIG = "gate.timer.batch.max";
    public static final String TIMER_BATCH_MAX_DOC = "Most due timers handled per punctuation per task; the rest "
            + "wait for the next punctuation so one tick never stalls the stream thread.";

    public static final String MAX_INPUT_BYTES_DEFAULT_CONFIG = "gate.max.input.bytes.default";
    public static final String MAX_INPUT_BYTES_DEFAULT_DOC = "Limit of input_json in UTF-8 bytes when the tool's "
            + "descriptor gives no positive max_input_bytes (INPUT_TOO_LARGE).";

    public static final String SUMMARY_MAX_CHARS_CONFIG = "gate.summary.max.chars";
    public static final String SUMMARY_MAX_CHARS_DOC = "Longest accepted summary (SCHEMA_INVALID above it); the "
            + "contract allows at most " + ContractLimits.SUMMARY_MAX_CHARS + ".";

    public static final String TRUSTED_KEYS_DIR_CONFIG = "gate.trusted.keys.dir";
    public static final String TRUSTED_KEYS_DIR_DOC = "Directory (a mounted secret) of trusted decision-signing "
            + "keys: one file <key_id>.pem or <key_id>.pub per key, Ed25519 X.509 public key in PEM or base64.";

    public static final String TRUSTED_KEYS_CONFIG = "gate.trusted.keys";
    public static final String TRUSTED_KEYS_DOC = "Inline trusted decision-signing keys, key_id=base64 of the "
            + "Ed25519 X.509 public key, comma separated. Added to gate.trusted.keys.dir.";

    public static final String APPROVERS_CONFIG = "gate.approvers";
    public static final String APPROVERS_DOC = "Who may decide: org_id:subject entries (subject * for anyone of "
            + "the org), comma separated. The approver_org must always equal the action's org_id; empty means any "
            + "subject of that org.";

    public static final String ROCKSDB_MEMORY_BYTES_CONFIG = "gate.rocksdb.memory.bytes";
    public static final String ROCKSDB_MEMORY_BYTES_DOC = "Bound on the off-heap memory of all the gate's RocksDB "
            + "stores in this process, in bytes: one shared block cache of this size that also holds the index and "
            + "filter blocks and is charged with the memtables (at most half of it). 0 keeps Kafka Streams' per-store "
            + "defaults (a 50 MiB block cache and up to three 16 MiB memtables per store instance, so memory grows "
            + "with partitions times stores). Ignored when gate.streams.rocksdb.config.setter is set.";

    public static final String TASK_DEFAULT_ORG_CONFIG = TaskOwnership.DEFAULT_ORG_CONFIG;
    public static final String TASK_DEFAULT_ORG_DOC = "Single-tenant migration only: the org that owns a TaskState "
            + "or OriginState written without org_id (before schema v2). Empty (the default) means such a task "
            + "or origin has no owner: every proposal under it is refused with TASK_NOT_OWNED, without holding "
            + "its key. Never set it on a deployment with more than one org.";

    /** Kafka Streams settings for the gate only, e.g. {@code gate.streams.num.stream.threads=4}. */
    public static final String STREAMS_PREFIX = "gate.streams.";

    public static final int MAX_ATTEMPTS_LIMIT = 3;

    private static final Duration ONE_MS = Duration.ofMillis(1);
    /** An org id or empty; its text is the configuration reference's "valid values". */
    private static final ConfigDef.Validator ORG_ID_OR_EMPTY = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && !value.toString().isEmpty()
                    && !TaskOwnership.ORG_ID.matcher(value.toString()).matches()) {
                throw new ConfigException(name, value,
                        "an org id (" + TaskOwnership.ORG_ID.pattern() + ") or empty");
            }
        }

        @Override
        public String toString() {
            return "an org id " + TaskOwnership.ORG_ID.pattern() + ", or empty";
        }
    };
    private static final Duration TEN_YEARS = Duration.ofDays(3650);

    /** The common keys ({@link CommonConfig}) plus the gate's. */
    public static final ConfigDef CONFIG_DEF = CommonConfig.configDef()
            .define(APPROVAL_TIMEOUT_CONFIG, Type.STRING, "24h", DurationParser.between(ONE_MS, TEN_YEARS),
                    Importance.HIGH, APPROVAL_TIMEOUT_DOC)
            .define(LEASE_DURATION_CONFIG, Type.STRING, "60s", DurationParser.between(ONE_MS, Duration.ofDays(1)),
                    Importance.HIGH, LEASE_DURATION_DOC)
            .define(DISPATCH_TIMEOUT_CONFIG, Type.STRING, "60s",
                    DurationParser.between(Duration.ZERO, Duration.ofDays(1)), Importance.HIGH, DISPATCH_TIMEOUT_DOC)
            .define(RETRY_MAX_ATTEMPTS_CONFIG, Type.INT, MAX_ATTEMPTS_LIMIT,
                    ConfigDef.Range.between(1, MAX_ATTEMPTS_LIMIT), Importance.MEDIUM, RETRY_MAX_ATTEMPTS_DOC)
            .define(RETRY_AFTER_CAP_CONFIG, Type.STRING, "10m",
                    DurationParser.between(Duration.ZERO, Duration.ofDays(1)), Importance.MEDIUM, RETRY_AFTER_CAP_DOC)
            .define(RETRY_BACKOFF_CONFIG, Type.STRING, "1s",
                    DurationParser.between(Duration.ZERO, Duration.ofHours(1)), Importance.LOW, RETRY_BACKOFF_DOC)
            .define(DEDUPE_WINDOW_CONFIG, Type.STRING, "7d", DurationParser.between(ONE_MS, TEN_YEARS),
                    Importance.MEDIUM, DEDUPE_WINDOW_DOC)
            .define(PUNCTUATE_INTERVAL_CONFIG, Type.STRING, "1s",
                    DurationParser.between(Duration.ofMillis(10), Duration.ofMinutes(10)), Importance.LOW,
                    PUNCTUATE_INTERVAL_DOC)
            .define(CANCEL_SWEEP_INTERVAL_CONFIG, Type.STRING, "10s",
                    DurationParser.between(Duration.ofMillis(10), Duration.ofHours(1)), Importance.LOW,
                    CANCEL_SWEEP_INTERVAL_DOC)
            .define(COMMIT_WHEN_DRAINED_CONFIG, Type.BOOLEAN, true, Importance.LOW, COMMIT_WHEN_DRAINED_DOC)
            .define(LEAVE_GROUP_ON_CLOSE_CONFIG, Type.BOOLEAN, true, Importance.LOW, LEAVE_GROUP_ON_CLOSE_DOC)
            .define(HANGING_CHECK_INTERVAL_CONFIG, Type.STRING, "1m",
                    DurationParser.between(Duration.ZERO, Duration.ofDays(1)), Importance.LOW,
                    HANGING_CHECK_INTERVAL_DOC)
            .define(HANGING_MIN_AGE_CONFIG, Type.STRING, "16m",
                    DurationParser.between(Duration.ofSeconds(1), Duration.ofDays(1)), Importance.LOW,
                    HANGING_MIN_AGE_DOC)
            .define(CANCEL_SWEEP_BATCH_MAX_CONFIG, Type.INT, 10_000, ConfigDef.Range.atLeast(1), Importance.LOW,
                    CANCEL_SWEEP_BATCH_MAX_DOC)
            .define(TIMER_BATCH_MAX_CONFIG, Type.INT, 10_000, ConfigDef.Range.atLeast(1), Importance.LOW,
                    TIMER_BATCH_MAX_DOC)
            .define(MAX_INPUT_BYTES_DEFAULT_CONFIG, Type.INT, ContractLimits.DEFAULT_MAX_INPUT_BYTES,
                    ConfigDef.Range.between(1, 8 * 1024 * 1024), Importance.MEDIUM, MAX_INPUT_BYTES_DEFAULT_DOC)
            .define(SUMMARY_MAX_CHARS_CONFIG, Type.INT, ContractLimits.SUMMARY_MAX_CHARS,
                    ConfigDef.Range.between(1, ContractLimits.SUMMARY_MAX_CHARS), Importance.LOW,
                    SUMMARY_MAX_CHARS_DOC)
            .define(TRUSTED_KEYS_DIR_CONFIG, Type.STRING, "", Importance.HIGH, TRUSTED_KEYS_DIR_DOC)
            .define(TRUSTED_KEYS_CONFIG, Type.LIST, "", Importance.HIGH, TRUSTED_KEYS_DOC)
            .define(APPROVERS_CONFIG, Type.LIST, "", Importance.HIGH, APPROVERS_DOC)
            .define(ROCKSDB_MEMORY_BYTES_CONFIG, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    ROCKSDB_MEMORY_BYTES_DOC)
            .define(TASK_DEFAULT_ORG_CONFIG, Type.STRING, "", ORG_ID_OR_EMPTY, Importance.HIGH, TASK_DEFAULT_ORG_DOC);

    private final TrustedKeys trustedKeys;
    private final ApproverPolicy approvers;
    // parsed once: read on every record
    private final Duration approvalTimeout;
    private final Duration leaseDuration;
    private final Duration dispatchTimeout;
    private final Duration retryAfterCap;
    private final Duration retryBackoff;
    private final Duration dedupeWindow;
    private final String taskDefaultOrg;

    public GateConfig(Map<String, String> values) {
        super(CONFIG_DEF, values);
        try {
            this.trustedKeys = TrustedKeys.load(getString(TRUSTED_KEYS_DIR_CONFIG), getList(TRUSTED_KEYS_CONFIG));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TRUSTED_KEYS_CONFIG + "/" + TRUSTED_KEYS_DIR_CONFIG + ": " + e.getMessage());
        }
        try {
            this.approvers = ApproverPolicy.parse(getList(APPROVERS_CONFIG));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(APPROVERS_CONFIG, getList(APPROVERS_CONFIG), e.getMessage());
        }
        this.approvalTimeout = duration(APPROVAL_TIMEOUT_CONFIG);
        this.leaseDuration = duration(LEASE_DURATION_CONFIG);
        this.dispatchTimeout = duration(DISPATCH_TIMEOUT_CONFIG);
        this.retryAfterCap = duration(RETRY_AFTER_CAP_CONFIG);
        this.retryBackoff = duration(RETRY_BACKOFF_CONFIG);
        this.dedupeWindow = duration(DEDUPE_WINDOW_CONFIG);
        this.taskDefaultOrg = getString(TASK_DEFAULT_ORG_CONFIG).isEmpty() ? null : getString(TASK_DEFAULT_ORG_CONFIG);
    }

    /** Builds a configuration from string properties (the CLI's file plus environment overrides). */
    public static GateConfig fromStrings(Map<String, String> values) {
        return new GateConfig(new HashMap<>(values));
    }

    public Duration approvalTimeout() {
        return approvalTimeout;
    }

    public Duration leaseDuration() {
        return leaseDuration;
    }

    public Duration dispatchTimeout() {
        return dispatchTimeout;
    }

    public int retryMaxAttempts() {
        return getInt(RETRY_MAX_ATTEMPTS_CONFIG);
    }

    public Duration retryAfterCap() {
        return retryAfterCap;
    }

    public Duration retryBackoff() {
        return retryBackoff;
    }

    /** {@value #ROCKSDB_MEMORY_BYTES_CONFIG}: 0 when unbounded (Kafka Streams' per-store defaults). */
    public long rocksDbMemoryBytes() {
        return getLong(ROCKSDB_MEMORY_BYTES_CONFIG);
    }

    /** {@value #TASK_DEFAULT_ORG_CONFIG}: the owner of a task or origin without org_id, or null (no owner). */
    public String taskDefaultOrg() {
        return taskDefaultOrg;
    }

    public Duration dedupeWindow() {
        return dedupeWindow;
    }

    public Duration punctuateInterval() {
        return duration(PUNCTUATE_INTERVAL_CONFIG);
    }

    /** {@value #COMMIT_WHEN_DRAINED_CONFIG}: whether a stream thread commits as soon as its input is drained. */
    public boolean commitWhenDrained() {
        return getBoolean(COMMIT_WHEN_DRAINED_CONFIG);
    }

    /** {@value #LEAVE_GROUP_ON_CLOSE_CONFIG}: whether a graceful close leaves the consumer group at once. */
    public boolean leaveGroupOnClose() {
        return getBoolean(LEAVE_GROUP_ON_CLOSE_CONFIG);
    }

    /** How often the hanging-transaction check runs; zero: never. */
    public Duration hangingCheckInterval() {
        return duration(HANGING_CHECK_INTERVAL_CONFIG);
    }

    public Duration hangingMinAge() {
        return duration(HANGING_MIN_AGE_CONFIG);
    }

    public Duration cancelSweepInterval() {
        return duration(CANCEL_SWEEP_INTERVAL_CONFIG);
    }

    public int cancelSweepBatchMax() {
        return getInt(CANCEL_SWEEP_BATCH_MAX_CONFIG);
    }

    public int timerBatchMax() {
        return getInt(TIMER_BATCH_MAX_CONFIG);
    }

    public int maxInputBytesDefault() {
        return getInt(MAX_INPUT_BYTES_DEFAULT_CONFIG);
    }

    public int summaryMaxChars() {
        return getInt(SUMMARY_MAX_CHARS_CONFIG);
    }

    public TrustedKeys trustedKeys() {
        return trustedKeys;
    }

    public ApproverPolicy approvers() {
        return approvers;
    }

    /** The {@code gate.streams.*} entries with the prefix removed, for Kafka Streams. */
    public Map<String, Object> streamsOverrides() {
        return originalsWithPrefix(STREAMS_PREFIX);
    }

    /** Documentation of every {@code gate.*} key, as a Markdown table (for the README). */
    public static String toMarkdown() {
        StringBuilder out = new StringBuilder("| key | default | description |\n|---|---|---|\n");
        for (ConfigDef.ConfigKey key : CONFIG_DEF.configKeys().values()) {
            if (!key.name.startsWith("gate.")) {
                continue;
            }
            Object dflt = key.defaultValue instanceof List<?> l && l.isEmpty() ? "" : key.defaultValue;
            out.append("| `").append(key.name).append("` | `").append(dflt).append("` | ")
                    .append(key.documentation).append(" |\n");
        }
        return out.toString();
    }

    private Duration duration(String key) {
        return DurationParser.parse(getString(key));
    }
}
