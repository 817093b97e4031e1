package io.actiongate.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The test tiers as the build runs them (README, docs/development.md): the fast tier is every test not tagged
 * {@code @Tag("system")}; {@code -Psystem} runs only the tagged {@code *IT} classes and methods, with Failsafe, and
 * fails a module that declares {@code tier.system.required} when none of them ran. What would make a test run in
 * neither tier, or a module pass the system tier with nothing run, is read here from the sources and poms.
 */
final class TestTiers {

    static final String TAG = "system";

    /** An annotation that starts a line: not a mention in a comment or a string. */
    private static final Pattern ANY_TAG = Pattern.compile("(?m)^\\s*(@Tags?\\s*\\([^)]*\\))");
    private static final Pattern SYSTEM_TAG = Pattern.compile(
            "(?m)^\\s*@Tag\\s*\\(\\s*(?:value\\s*=\\s*)?\"" + TAG + "\"\\s*\\)");
    private static final Pattern REQUIRED = Pattern.compile(
            "<tier\\.system\\.required>\\s*true\\s*</tier\\.system\\.required>");
    private static final Pattern GROUPS = Pattern.compile("<(groups|excludedGroups)>");

    private TestTiers() {
    }

    /** The modules of the root pom, as directories relative to {@code root}. */
    static List<String> modules(Path root) {
        String pom = read(root.resolve("pom.xml"));
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        while (m.find()) {
            modules.add(m.group(1).strip());
        }
        return modules;
    }

    /** Everything that breaks the tiers, one line each ({@code module: what}); empty when they hold. */
    static List<String> violations(Path root, List<String> modules) {
        List<String> found = new ArrayList<>();
        for (String module : modules) {
            Path dir = root.resolve(module);
            List<Path> tagged = new ArrayList<>();
            for (Path source : testSources(dir)) {
                String text = read(source);
                String name = dir.relativize(source).toString();
                Matcher tag = ANY_TAG.matcher(text);
                while (tag.find()) {
                    if (!SYSTEM_TAG.matcher(tag.group(1)).matches()) {
                        found.add(module + ": " + name + " has " + tag.group(1) + "; the tiers know only @Tag(\""
                                + TAG + "\"), any other tag runs in the fast tier");
                    }
                }
                if (SYSTEM_TAG.matcher(text).find()) {
                    tagged.add(source);
                    if (!source.getFileName().toString().endsWith("IT.java")) {
                        found.add(module + ": " + name + " is tagged \"" + TAG + "\" but is no *IT: -Psystem runs "
                                + "Failsafe only, so it would run in neither tier");
                    }
                }
            }
            String pom = read(dir.resolve("pom.xml"));
            boolean required = REQUIRED.matcher(pom).find();
            if (!tagged.isEmpty() && !required) {
                found.add(module + ": holds system-tier tests but its pom does not set tier.system.required to "
                        + "true: -Psystem would pass there with none of them run");
            }
            if (tagged.isEmpty() && required) {
                found.add(module + ": sets tier.system.required but holds no system-tier test: -Psystem fails there");
            }
            if (GROUPS.matcher(pom).find()) {
                found.add(module + ": its pom sets Surefire's or Failsafe's groups; the tiers' tag expression is the "
                        + "parent's tier.tags alone");
            }
        }
        String parent = read(root.resolve("pom.xml"));
        long filtered = Pattern.compile("<groups>\\$\\{tier\\.tags}</groups>").matcher(parent).results().count();
        if (filtered != 2) {
            found.add("pom.xml: Surefire and Failsafe must each filter by <groups>${tier.tags}</groups> (found "
                    + filtered + ")");
        }
        return found;
    }

    private static List<Path> testSources(Path module) {
        Path tests = module.resolve("src/test/java");
        if (!Files.isDirectory(tests)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(tests)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
