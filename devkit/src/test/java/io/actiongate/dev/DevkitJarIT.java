package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The dev kit's jar (what {@code ./actiongate} runs: dev, demo, chaos and every production command) holds every
 * actiongate class of the production jar. A dependency declared here at test scope overrides the compile scope it has
 * through cli, and Maven then leaves that module out of the shaded jar while every in-process test still passes: it
 * happened with workers (no executor in {@code actiongate chaos}) and with runtime ({@code NoClassDefFoundError:
 * io/actiongate/runtime/Role} for every role {@code actiongate run} starts). System tier: the fast tier does not
 * build the shaded jars (-Pdist and -Psystem do).
 */
@Tag("system")
class DevkitJarIT {

    @Test
    void shouldHoldEveryActiongateClassOfTheProductionJar() throws IOException {
        Path production = shadedJar(Path.of("..", "cli", "target"), "actiongate-cli-");
        Path devkit = shadedJar(Path.of("target"), "actiongate-devkit-");

        Set<String> missing = actiongateClasses(production);
        assertThat(missing).as("actiongate classes in %s", production).hasSizeGreaterThan(100);
        missing.removeAll(actiongateClasses(devkit));

        assertThat(missing).as("classes of %s missing from %s", production.getFileName(), devkit.getFileName())
                .isEmpty();
    }

    static Path shadedJar(Path dir, String prefix) throws IOException {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, prefix + "*-all.jar")) {
            for (Path jar : jars) {
                return jar;
            }
        }
        throw new AssertionError("no " + prefix + "*-all.jar in " + dir.toAbsolutePath().normalize()
                + ": build with `mvn verify` from the root, so that cli and devkit are packaged first");
    }

    private static Set<String> actiongateClasses(Path jar) throws IOException {
        Set<String> names = new TreeSet<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream().map(e -> e.getName())
                    .filter(n -> n.startsWith("io/actiongate/") && n.endsWith(".class"))
                    .forEach(names::add);
        }
        return names;
    }
}
