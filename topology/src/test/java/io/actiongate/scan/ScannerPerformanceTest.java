package io.actiongate.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scanner runs on a stream thread for every proposal: 256 KiB built to provoke backtracking in each pattern
 * must scan in well under a second of CPU time (typically tens of milliseconds).
 */
class ScannerPerformanceTest {

    private static final int SIZE = 256 * 1024;
    private static final Duration BOUND = Duration.ofMillis(1000);
    private static final CredentialScanner SCANNER = CredentialScanner.defaults();

    @BeforeAll
    static void warmUp() {
        SCANNER.scan("warm up " + Fake.githubToken());
        SCANNER.scanJson("{\"warm\":\"up\"}");
    }

    private static String fill(String unit) {
        StringBuilder sb = new StringBuilder(SIZE + unit.length());
        while (sb.length() < SIZE) {
            sb.append(unit);
        }
        return sb.substring(0, SIZE);
    }

    static Stream<Arguments> adversarialInputs() {
        return Stream.of(
                Arguments.of("one long token run", fill("a")),
                Arguments.of("upper-case run", fill("AKIA")),
                Arguments.of("base64 run", fill(Fake.chars(Fake.BASE64, 64))),
                Arguments.of("pem header prefixes", fill(Fake.DASHES + "BEGIN A B C D ")),
                Arguments.of("jwt-like segments", fill("eyJhbGciOiJIUzI1NiJ9.")),
                Arguments.of("jwt-like run", "ey" + fill("A")),
                Arguments.of("slack prefixes", fill("xoxb-1-")),
                Arguments.of("slack dashes", "xoxb-" + fill("1-")),
                Arguments.of("url userinfo", fill("a://b:")),
                Arguments.of("url schemes", fill("ab+c.d-")),
                Arguments.of("assignments", fill("password=")),
                Arguments.of("nested assignments", fill("note: password=")),
                Arguments.of("names and separators", fill("a:")),
                Arguments.of("quoted assignments", fill("api_key: \"")),
                Arguments.of("long identifier", fill("secret_") + "=x"),
                Arguments.of("bearer", fill("Bearer ")),
                Arguments.of("bearer token run", "Bearer " + fill("a.")),
                Arguments.of("basic", fill("Basic QQ== ")),
                Arguments.of("sk prefixes", fill("sk-")),
                Arguments.of("sk run", "sk-" + fill("aB3_")),
                Arguments.of("hooks", fill("hooks.slack.com/services/")),
                Arguments.of("json-ish nesting", fill("{\"a\":[")),
                Arguments.of("whitespace", fill(" \t")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("adversarialInputs")
    void shouldScanAdversarial256KiBInWellUnderASecond(String name, String input) {
        assertThat(input.length()).isGreaterThanOrEqualTo(SIZE);
        assertThat(elapsed(() -> SCANNER.scan(input))).as("scan(%s)", name).isLessThan(BOUND);
        assertThat(elapsed(() -> SCANNER.scanJson(input))).as("scanJson(%s)", name).isLessThan(BOUND);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("jsonDocuments")
    void shouldWalkLarge256KiBJsonDocumentsInWellUnderASecond(String name, String json) {
        assertThat(elapsed(() -> SCANNER.scanJson(json))).as("scanJson(%s)", name).isLessThan(BOUND);
    }

    static Stream<Arguments> jsonDocuments() {
        StringBuilder members = new StringBuilder("{");
        for (int i = 0; members.length() < SIZE; i++) {
            members.append("\"password_").append(i).append("\":\"please reset it\",");
        }
        members.append("\"end\":1}");
        StringBuilder array = new StringBuilder("[");
        while (array.length() < SIZE) {
            array.append("\"ab12\",");
        }
        array.append("0]");
        String deep = "[".repeat(900) + "]".repeat(900);
        return Stream.of(
                Arguments.of("many sensitive members", members.toString()),
                Arguments.of("many short strings", array.toString()),
                Arguments.of("deep nesting", deep),
                Arguments.of("one huge string", "{\"token\":\"" + fill("aB3") + "\"}"));
    }

    /**
     * CPU time of this thread where the JVM measures it (so that other builds sharing the machine do not fail the
     * test), wall time otherwise. Catastrophic backtracking shows up in both.
     */
    private static Duration elapsed(Supplier<?> work) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean cpu = threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();
        long start = cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
        work.get();
        long end = cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
        return Duration.ofNanos(end - start);
    }
}
