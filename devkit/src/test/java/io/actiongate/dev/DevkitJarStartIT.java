package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./actiongate dev}, the README's second command, as a newcomer runs it: the dev kit's shaded jar in a JVM of
 * its own, until it says it is running (with the one-shot commands' C1-only options, which start it faster on a busy
 * machine; which classes load does not depend on the compiler). Every in-process test runs on the
 * test classpath, which holds every test-scoped dependency too, so a library the jar lacks shows only here: a direct
 * test-scoped declaration of nimbus-jose-jwt overrode the runtime scope it has through the identity provider, and
 * {@code ./actiongate dev} stopped at start with {@code NoClassDefFoundError: com/nimbusds/jose/jwk/source/JWKSource}
 * while every other test passed. System tier: a whole dev stack in a second JVM.
 */
@Tag("system")
class DevkitJarStartIT {

    private static final String RUNNING = "actiongate dev is running.";

    @Test
    void shouldStartDevFromTheShadedJar(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("dev.properties");
        Files.writeString(config, "http.port=0\n", StandardCharsets.UTF_8);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path jar = DevkitJarIT.shadedJar(Path.of("target"), "actiongate-devkit-").toAbsolutePath();
        Process dev = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar",
                jar.toString(), "dev", "-p", "0", "-c", config.toString())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        ConcurrentLinkedQueue<String> output = new ConcurrentLinkedQueue<>();
        CountDownLatch running = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(dev.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    output.add(line);
                    if (line.contains(RUNNING)) {
                        running.countDown();
                    }
                }
            } catch (IOException e) {
                output.add("(reading dev's output failed: " + e + ")");
            }
        }, "dev-output");
        reader.setDaemon(true);
        reader.start();
        try {
            boolean started = false;
            for (int i = 0; i < 180 && !started && dev.isAlive(); i++) {
                started = running.await(1, TimeUnit.SECONDS);
            }
            List<String> lines = List.copyOf(output);
            assertThat(started).as("dev from the jar said \"%s\"; its output:%n%s", RUNNING,
                    String.join("\n", lines)).isTrue();
            assertThat(lines).as("dev's output").noneMatch(l -> l.contains("NoClassDefFoundError")
                    || l.contains("ClassNotFoundException") || l.contains("Exception in thread"));
        } finally {
            dev.destroy();
            if (!dev.waitFor(60, TimeUnit.SECONDS)) {
                dev.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

}
