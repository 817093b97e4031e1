package io.actiongate.testing;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.TestInfo;

/**
 * Topic prefixes and application ids derived from the running test, so tests sharing one broker never share a
 * topic, consumer group or Streams application. Each call returns a new name (a counter makes repeated calls in
 * one test, or repeated tests, distinct).
 */
public final class TestNames {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestNames() {
    }

    /** E.g. {@code it.gatetopologyit.shouldapprove.3.}: ends with a dot, like {@code actiongate.}. */
    public static String topicPrefix(TestInfo test) {
        return "it." + base(test) + "." + SEQUENCE.incrementAndGet() + ".";
    }

    /** E.g. {@code it-gatetopologyit-shouldapprove-4}. */
    public static String applicationId(TestInfo test) {
        return "it-" + base(test).replace('.', '-') + "-" + SEQUENCE.incrementAndGet();
    }

    static String base(TestInfo test) {
        String cls = test.getTestClass().map(Class::getSimpleName).orElse("test");
        String method = test.getTestMethod().map(m -> m.getName()).orElse("all");
        return sanitize(cls) + "." + sanitize(method);
    }

    private static String sanitize(String s) {
        String cleaned = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "");
        return cleaned.length() > 60 ? cleaned.substring(0, 60) : cleaned;
    }
}
