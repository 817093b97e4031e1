package io.actiongate.reconciler;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import java.util.TreeMap;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import io.actiongate.config.CommonConfig;
import io.actiongate.config.DurationParser;

/**
 * Configuration of the reconciler role: the common keys of {@link CommonConfig} plus {@code reconciler.*}. Settings
 * for only the reconciler's consumer or producer pass through with the prefixes {@link #CONSUMER_PREFIX} and
 * {@link #PRODUCER_PREFIX}; manual commits and {@code read_committed} are fixed.
 */
public final class ReconcilerConfig extends CommonConfig {

    public static final String CONSUMER_PREFIX = "reconciler.consumer.";
    public static final String PRODUCER_PREFIX = "reconciler.producer.";

    public static final String GROUP_ID_CONFIG = "reconciler.group.id";
    public static final String GROUP_ID_DOC = "Consumer group of the reconcilers.";

    public static final String MAX_LOOKUPS_CONFIG = "reconciler.max.lookups";
    public static final String MAX_LOOKUPS_DOC = "Lookups per unknown outcome before the verdict is STILL_UNKNOWN.";

    public static final String BACKOFF_INITIAL_CONFIG = "reconciler.backoff.initial";
    public static final String BACKOFF_INITIAL_DOC = "Wait after the first inconclusive lookup, ; "
            + "doubles after each further one.";

    public static final String BACKOFF_MAX_CONFIG = "reconciler.backoff.max";
    public static final String BACKOFF_MAX_DOC = "Ceiling of the wait between two lookups.";

    public static final String MAX_POLL_RECORDS_CONFIG = "reconciler.max.poll.records";
    public static final String MAX_POLL_RECORDS_DOC = "Most unknown outcomes taken in one batch.";

    public static final String POLL_TIMEOUT_CONFIG = "reconciler.poll.timeout";
    public static final String POLL_TIMEOUT_DOC = "Longest wait of one poll; a poll also returns "
            + "when the next lookup falls due.";

    public static final String LOOKUP_BUDGET_CONFIG = "reconciler.lookup.budget";
    public static final String LOOKUP_BUDGET_DOC = "Time the poll thread may spend on due lookups "
            + "before it polls again. Keep it well below the consumer's max.poll.interval.ms.";

    public static final ConfigDef CONFIG = CommonConfig.configDef()
            .define(GROUP_ID_CONFIG, Type.STRING, "actiongate-reconciler", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, GROUP_ID_DOC)
            .define(MAX_LOOKUPS_CONFIG, Type.INT, 5, ConfigDef.Range.between(1, 100), Importance.MEDIUM,
                    MAX_LOOKUPS_DOC)
            .define(BACKOFF_INITIAL_CONFIG, Type.STRING, "1s", DurationParser.between(Duration.ofMillis(1), Duration.ofMillis(3600000)),
                    Importance.MEDIUM, BACKOFF_INITIAL_DOC)
            .define(BACKOFF_MAX_CONFIG, Type.STRING, "60s", DurationParser.between(Duration.ofMillis(1), Duration.ofMillis(86400000)),
                    Importance.MEDIUM, BACKOFF_MAX_DOC)
            .define(MAX_POLL_RECORDS_CONFIG, Type.INT, 50, ConfigDef.Range.between(1, 10_000), Importance.LOW,
                    MAX_POLL_RECORDS_DOC)
            .define(POLL_TIMEOUT_CONFIG, Type.STRING, "500ms", DurationParser.between(Duration.ofMillis(1), Duration.ofMillis(60000)), Importance.LOW,
                    POLL_TIMEOUT_DOC)
            .define(LOOKUP_BUDGET_CONFIG, Type.STRING, "30s", DurationParser.between(Duration.ofMillis(1), Duration.ofMillis(600000)),
                    Importance.LOW, LOOKUP_BUDGET_DOC);

    /** {@code originals} as read from the configuration file and environment; values are taken as strings. */
    public ReconcilerConfig(Map<String, ?> originals) {
        super(CONFIG, strings(originals));
        if (duration(BACKOFF_MAX_CONFIG).compareTo(duration(BACKOFF_INITIAL_CONFIG)) < 0) {
            throw new ConfigException(BACKOFF_MAX_CONFIG, getString(BACKOFF_MAX_CONFIG),
                    "must not be below " + BACKOFF_INITIAL_CONFIG);
        }
    }

    private Duration duration(String key) {
        return DurationParser.parse(getString(key));
    }

    public String groupId() {
        return getString(GROUP_ID_CONFIG);
    }

    public int maxLookups() {
        return getInt(MAX_LOOKUPS_CONFIG);
    }

    public Backoff backoff() {
        return new Backoff(duration(BACKOFF_INITIAL_CONFIG),
                duration(BACKOFF_MAX_CONFIG));
    }

    public int maxPollRecords() {
        return getInt(MAX_POLL_RECORDS_CONFIG);
    }

    public Duration pollTimeout() {
        return duration(POLL_TIMEOUT_CONFIG);
    }

    public Duration lookupBudget() {
        return duration(LOOKUP_BUDGET_CONFIG);
    }

    static Map<String, String> strings(Map<String, ?> originals) {
        Map<String, String> strings = new TreeMap<>();
        originals.forEach((key, value) -> strings.put(key, value == null ? null : String.valueOf(value)));
        return strings;
    }

    public Map<String, Object> consumerOverrides() {
        return new HashMap<>(originalsWithPrefix(CONSUMER_PREFIX));
    }

    public Map<String, Object> producerOverrides() {
        return new HashMap<>(originalsWithPrefix(PRODUCER_PREFIX));
    }
}
