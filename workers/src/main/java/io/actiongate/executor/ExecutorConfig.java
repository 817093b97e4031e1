package io.actiongate.executor;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.CommonConfig;
import io.actiongate.config.DurationParser;

/**
 * Configuration of the executor role: the common keys of {@link CommonConfig} ({@code bootstrap.servers},
 * {@code topic.prefix}, {@code kafka.*} for every client) plus {@code executor.*}. Settings for only the executor's
 * consumer or producer pass through with {@link #CONSUMER_PREFIX} and {@link #PRODUCER_PREFIX}; the settings the
 * dispatch fence depends on (manual commits, {@code read_committed}, the idempotent producer) cannot be overridden.
 */
public final class ExecutorConfig extends CommonConfig {

    public static final String CONSUMER_PREFIX = "executor.consumer.";
    public static final String PRODUCER_PREFIX = "executor.producer.";

    public static final String GROUP_ID_CONFIG = "executor.group.id";
    public static final String GROUP_ID_DOC = "Consumer group of the executors. Every executor of one deployment "
            + "uses the same group, so each attempts partition has exactly one owner.";

    public static final String DISPATCH_THREADS_CONFIG = "executor.dispatch.threads";
    public static final String DISPATCH_THREADS_DOC = "Size of the bounded dispatch pool. While every thread is "
            + "busy and as many committed reservations again wait for one, the executor pauses its partitions and "
            + "keeps polling.";

    public static final String MAX_POLL_RECORDS_CONFIG = "executor.max.poll.records";
    public static final String MAX_POLL_RECORDS_DOC = "Most reservations taken (and committed) in one batch.";

    public static final String POLL_TIMEOUT_CONFIG = "executor.poll.timeout";
    public static final String POLL_TIMEOUT_DOC = "How long one poll waits for reservations.";

    public static final String EXECUTOR_ID_CONFIG = "executor.id";
    public static final String EXECUTOR_ID_DOC = "Identifier written to AttemptOutcome.executor_id. "
            + "Defaults to executor-<pid@host>.";

    public static final String REVOCATION_TIMEOUT_CONFIG = "executor.revocation.timeout";
    public static final String REVOCATION_TIMEOUT_DOC = "How long a partition revocation waits "
            + "for the in-flight dispatches of that partition to produce their outcomes.";

    public static final String SHUTDOWN_TIMEOUT_CONFIG = "executor.shutdown.timeout";
    public static final String SHUTDOWN_TIMEOUT_DOC = "How long close() waits for in-flight "
            + "dispatches to produce their outcomes.";

    public static final String DUPLICATE_FENCE_RECORDS_CONFIG = "executor.duplicate.fence.records";
    public static final String DUPLICATE_FENCE_RECORDS_DOC = "How many reservations per attempts partition the "
            + "executor remembers, by action key and attempt, to dispatch no attempt twice: a second reservation of "
            + "an attempt it remembers is skipped (counted in actiongate_executor_duplicate_reservations) and, "
            + "without its outcome, becomes UNKNOWN at the gate and reconciled. When it gets a partition it reads "
            + "that many before the committed offset again. 0 turns the fence off.";

    public static final ConfigDef CONFIG = CommonConfig.configDef()
            .define(GROUP_ID_CONFIG, Type.STRING, "actiongate-executor", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, GROUP_ID_DOC)
            .define(DISPATCH_THREADS_CONFIG, Type.INT, 8, ConfigDef.Range.between(1, 1024),
                    Importance.MEDIUM, DISPATCH_THREADS_DOC)
            .define(MAX_POLL_RECORDS_CONFIG, Type.INT, 100, ConfigDef.Range.between(1, 10_000),
                    Importance.MEDIUM, MAX_POLL_RECORDS_DOC)
            .define(POLL_TIMEOUT_CONFIG, Type.STRING, "500ms", DurationParser.between(Duration.ofMillis(1), Duration.ofMillis(60000)),
                    Importance.LOW, POLL_TIMEOUT_DOC)
            .define(EXECUTOR_ID_CONFIG, Type.STRING, null, Importance.LOW, EXECUTOR_ID_DOC)
            .define(REVOCATION_TIMEOUT_CONFIG, Type.STRING, "30s", DurationParser.between(Duration.ZERO, Duration.ofMillis(600000)),
                    Importance.LOW, REVOCATION_TIMEOUT_DOC)
            .define(SHUTDOWN_TIMEOUT_CONFIG, Type.STRING, "30s", DurationParser.between(Duration.ZERO, Duration.ofMillis(600000)),
                    Importance.LOW, SHUTDOWN_TIMEOUT_DOC)
            .define(DUPLICATE_FENCE_RECORDS_CONFIG, Type.INT, DispatchLoop.DEFAULT_FENCE_RECORDS,
                    ConfigDef.Range.between(0, 10_000_000), Importance.LOW, DUPLICATE_FENCE_RECORDS_DOC);

    /** {@code originals} as read from the configuration file and environment; values are taken as strings. */
    public ExecutorConfig(Map<String, ?> originals) {
        super(CONFIG, strings(originals));
    }

    static Map<String, String> strings(Map<String, ?> originals) {
        Map<String, String> strings = new TreeMap<>();
        originals.forEach((key, value) -> strings.put(key, value == null ? null : String.valueOf(value)));
        return strings;
    }

    public String groupId() {
        return getString(GROUP_ID_CONFIG);
    }

    public int duplicateFenceRecords() {
        return getInt(DUPLICATE_FENCE_RECORDS_CONFIG);
    }

    public int dispatchThreads() {
        return getInt(DISPATCH_THREADS_CONFIG);
    }

    public int maxPollRecords() {
        return getInt(MAX_POLL_RECORDS_CONFIG);
    }

    public Duration pollTimeout() {
        return DurationParser.parse(getString(POLL_TIMEOUT_CONFIG));
    }

    public Duration revocationTimeout() {
        return DurationParser.parse(getString(REVOCATION_TIMEOUT_CONFIG));
    }

    public Duration shutdownTimeout() {
        return DurationParser.parse(getString(SHUTDOWN_TIMEOUT_CONFIG));
    }

    public String executorId() {
        String id = getString(EXECUTOR_ID_CONFIG);
        return id == null || id.isBlank() ? "executor-" + ManagementFactory.getRuntimeMXBean().getName() : id;
    }

    /** Extra consumer settings given with {@link #CONSUMER_PREFIX}. */
    public Map<String, Object> consumerOverrides() {
        return new HashMap<>(originalsWithPrefix(CONSUMER_PREFIX));
    }

    /** Extra producer settings given with {@link #PRODUCER_PREFIX}. */
    public Map<String, Object> producerOverrides() {
        return new HashMap<>(originalsWithPrefix(PRODUCER_PREFIX));
    }
}
