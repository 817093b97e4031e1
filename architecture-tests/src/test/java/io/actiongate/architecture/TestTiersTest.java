package io.actiongate.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every test runs in one tier, and -Psystem fails a module whose system tests did not run ({@link TestTiers}). */
class TestTiersTest {

    @Test
    void shouldRunEveryTestInOneTierAndCheckThatEachModulesSystemTestsRan() {
        Path root = ProductionClasses.root();
        List<String> modules = TestTiers.modules(root);
        assertThat(modules).contains("chaos", "load-tests", "approver-it", "examples/client-example");

        assertThat(TestTiers.violations(root, modules)).as("what breaks the test tiers").isEmpty();
    }

    @Test
    void shouldReportATaggedUnitTestAnUnknownTagAndAModuleWhosePomDisagreesWithItsTests(@TempDir Path root)
            throws IOException {
        write(root, "pom.xml", "<modules><module>a</module><module>b</module><module>c</module></modules>"
                + "<groups>${tier.tags}</groups> <groups>${tier.tags}</groups>");
        write(root, "a/pom.xml", "<properties></properties>");
        write(root, "a/src/test/java/x/SlowIT.java", String.join("\n",
                "/** Mentions @Tag(\"system\") in a comment only. */",
                "@Tag(\"system\")",
                "class SlowIT {}"));
        write(root, "a/src/test/java/x/HeavyTest.java", "@Tag(\"system\")\nclass HeavyTest {}");
        write(root, "b/pom.xml", "<tier.system.required>true</tier.system.required><groups>fast</groups>");
        write(root, "b/src/test/java/x/OtherIT.java", "  @Tag(\"slow\")\nclass OtherIT { String s = \"@Tag(\\\"x\\\")\"; }");
        write(root, "c/pom.xml", "<tier.system.required>true</tier.system.required>");
        write(root, "c/src/test/java/x/FineIT.java", "@Tag(value = \"system\")\nclass FineIT {}");

        assertThat(TestTiers.violations(root, TestTiers.modules(root))).containsExactly(
                "a: src/test/java/x/HeavyTest.java is tagged \"system\" but is no *IT: -Psystem runs Failsafe only, "
                        + "so it would run in neither tier",
                "a: holds system-tier tests but its pom does not set tier.system.required to true: -Psystem would "
                        + "pass there with none of them run",
                "b: src/test/java/x/OtherIT.java has @Tag(\"slow\"); the tiers know only @Tag(\"system\"), any other "
                        + "tag runs in the fast tier",
                "b: sets tier.system.required but holds no system-tier test: -Psystem fails there",
                "b: its pom sets Surefire's or Failsafe's groups; the tiers' tag expression is the parent's "
                        + "tier.tags alone");
    }

    @Test
    void shouldReportAParentThatDoesNotFilterBothPlugins(@TempDir Path root) throws IOException {
        write(root, "pom.xml", "<modules></modules><groups>${tier.tags}</groups>");

        assertThat(TestTiers.violations(root, TestTiers.modules(root))).containsExactly(
                "pom.xml: Surefire and Failsafe must each filter by <groups>${tier.tags}</groups> (found 1)");
    }

    private static void write(Path root, String file, String text) throws IOException {
        Path path = root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, text, StandardCharsets.UTF_8);
    }
}
