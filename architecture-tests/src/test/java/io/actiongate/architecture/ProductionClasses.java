package io.actiongate.architecture;

import java.nio.file.Files;
import java.nio.file.Path;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The production classes of every module (this module's test classpath holds them all), imported once per test
 * JVM; and the repository root, for the checks that read the README and the root pom.
 */
final class ProductionClasses {

    private static JavaClasses classes;

    static synchronized JavaClasses get() {
        if (classes == null) {
            classes = new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .withImportOption(location -> !location.contains("-tests.jar"))
                    .importPackages("io.actiongate");
        }
        return classes;
    }

    /** The repository root: the parent of this module's directory, where Surefire runs the tests. */
    static Path root() {
        Path root = Path.of("..").toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("architecture-tests"))) {
            throw new IllegalStateException("run from the architecture-tests module directory, not " + root);
        }
        return root;
    }

    private ProductionClasses() {
    }
}
