package io.actiongate.node;

import java.util.Map;
import java.util.Properties;

/**
 * JVM-wide settings an actiongate process applies first thing in {@code main}, before anything starts the common
 * fork-join pool, unless the operator set them.
 *
 * <p>{@code java.util.concurrent.ForkJoinPool.common.parallelism}: at least {@value #MIN_COMMON_POOL_PARALLELISM}.
 * The JDK sizes the common pool at cores − 1, and below a parallelism of 2 {@code CompletableFuture} runs every
 * async step on a <em>new thread</em>. The JDK's {@code HttpClient} completes each {@code sendAsync} through such a
 * step, so on a 2-core machine every provider call of the webhook and X connectors started and discarded a thread
 * (measured on the benchmark's row f: about 15 % of its throughput). Two workers on a small machine cost nothing
 * when idle; an operator's own {@code -D} value always wins.
 */
public final class JvmDefaults {

    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";
    static final int MIN_COMMON_POOL_PARALLELISM = 2;

    private JvmDefaults() {
    }

    /** Applies {@link #missing} for this JVM to the system properties. */
    public static void apply() {
        missing(Runtime.getRuntime().availableProcessors(), System.getProperties()).forEach(System::setProperty);
    }

    /** The properties to set for a JVM with {@code processors} cores whose system properties are {@code current}. */
    static Map<String, String> missing(int processors, Properties current) {
        if (current.getProperty(COMMON_POOL_PARALLELISM) != null || processors - 1 >= MIN_COMMON_POOL_PARALLELISM) {
            return Map.of();
        }
        return Map.of(COMMON_POOL_PARALLELISM, Integer.toString(MIN_COMMON_POOL_PARALLELISM));
    }
}
