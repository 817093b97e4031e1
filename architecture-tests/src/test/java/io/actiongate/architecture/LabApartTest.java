package io.actiongate.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;

import io.actiongate.architecture.Modules.Module;

/**
 * The laboratory stays apart from the product. The lab is what measures, shakes or stands in for a deployment of
 * the product and is no part of the production artifact: {@link #LAB} ({@code load-tests}, the benchmark;
 * {@code baseline-postgres}, the hand-built PostgreSQL alternative it measures; {@code chaos}, the fault runs;
 * {@code devkit}, the local kit {@code ./actiongate dev} runs). The product is
 * {@link Modules#production()}. {@code sandbox} and {@code test-support} are neither: they are fixtures the product's
 * own tests use (a simulated provider, an embedded broker), so a product module may name them in test scope.
 * <ul>
 * <li>no product module's pom depends on a lab module, in any scope;</li>
 * <li>no product class is used only by the lab (a class whose every user, besides itself, is lab code
 * belongs in the lab, or is made product by a product use);</li>
 * <li>no code comment names an issue number: the why stays in the comment, the ticket lives in the tracker.</li>
 * </ul>
 */
class LabApartTest {

    /** The lab modules, by directory. */
    static final Set<String> LAB = Set.of("load-tests", "baseline-postgres", "chaos", "devkit");

    @Test
    void shouldKeepEveryLabModuleBelowTheProduct() {
        List<String> production = Modules.production().stream().map(Module::directory).toList();
        assertThat(LAB).as("lab modules present in the layered order")
                .allSatisfy(lab -> assertThat(Modules.ORDER.stream().map(Module::directory)).contains(lab));
        assertThat(production).as("the product holds no lab module").doesNotContainAnyElementsOf(LAB);
    }

    @Test
    void shouldLetNoProductModuleDependOnALabModule() throws IOException {
        List<String> found = new ArrayList<>();
        for (Module module : Modules.production()) {
            Path pom = ProductionClasses.root().resolve(module.directory()).resolve("pom.xml");
            found.addAll(labDependencies(module.directory(), Files.readString(pom, StandardCharsets.UTF_8)));
        }
        assertThat(found).as("product poms that name a lab module (the product must build and ship without it)")
                .isEmpty();
    }

    @Test
    void shouldSeeALabDependencyInAPom() {
        String pom = "<project><artifactId>actiongate-topology</artifactId><dependencies>"
                + "<dependency><groupId>io.actiongate</groupId><artifactId>actiongate-sandbox</artifactId>"
                + "<scope>test</scope></dependency>"
                + "<dependency>\n  <groupId>io.actiongate</groupId>\n  <artifactId>actiongate-load-tests</artifactId>\n"
                + "  <scope>test</scope>\n</dependency></dependencies></project>";
        assertThat(labDependencies("topology", pom)).containsExactly("topology -> actiongate-load-tests");
    }

    /** The lab artifacts a pom's dependencies name, as "module -> artifact". */
    static List<String> labDependencies(String module, String pom) {
        Set<String> labArtifacts = new TreeSet<>();
        for (String lab : LAB) {
            labArtifacts.add("actiongate-" + lab);
        }
        List<String> found = new ArrayList<>();
        Matcher dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(pom);
        while (dependency.find()) {
            Matcher artifact = Pattern.compile("<artifactId>\\s*([^<\\s]+)\\s*</artifactId>")
                    .matcher(dependency.group(1));
            if (artifact.find() && labArtifacts.contains(artifact.group(1))) {
                found.add(module + " -> " + artifact.group(1));
            }
        }
        return found;
    }

    @Test
    void shouldHaveNoProductClassUsedOnlyByTheLab() {
        assertThat(usedOnlyByTheLab(ProductionClasses.get()))
                .as("product classes whose only users outside their module are lab classes: move them into the lab")
                .isEmpty();
    }

    /**
     * Product classes (top-level, nested ones counted with their owner) that classes of other modules use, all of
     * them lab classes; with the users of each.
     */
    static TreeMap<String, Set<String>> usedOnlyByTheLab(JavaClasses classes) {
        List<Module> production = Modules.production();
        TreeMap<String, Set<String>> labUsers = new TreeMap<>();
        Set<String> productUsed = new TreeSet<>();
        for (JavaClass type : classes) {
            Module home = Modules.of(type).orElse(null);
            if (home == null || !production.contains(home)) {
                continue;
            }
            JavaClass top = topLevel(type);
            for (Dependency d : type.getDirectDependenciesToSelf()) {
                JavaClass user = topLevel(d.getOriginClass());
                if (user.equals(top)) {
                    continue;
                }
                Module userModule = Modules.of(user).orElse(null);
                if (userModule != null && LAB.contains(userModule.directory())) {
                    labUsers.computeIfAbsent(top.getName(), k -> new TreeSet<>()).add(user.getName());
                } else {
                    productUsed.add(top.getName());
                }
            }
        }
        labUsers.keySet().removeAll(productUsed);
        return labUsers;
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }

    /** The word issue (or issues) and a number, "#" before it or not: a ticket number in a code comment. */
    static final Pattern ISSUE_NUMBER = Pattern.compile("(?i)\\bissues?\\s+#?\\d+");

    @Test
    void shouldNameNoIssueNumberInCodeComments() throws IOException {
        List<String> found = new ArrayList<>();
        Path root = ProductionClasses.root();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(LabApartTest::isSource).sorted().toList()) {
                List<String> comments = comments(Files.readString(file, StandardCharsets.UTF_8));
                for (String comment : comments) {
                    Matcher m = ISSUE_NUMBER.matcher(comment);
                    if (m.find()) {
                        found.add(root.relativize(file) + ": " + m.group());
                    }
                }
            }
        }
        assertThat(found).as("code comments that name an issue (keep the why, drop the ticket number)").isEmpty();
    }

    @Test
    void shouldFindAnIssueNumberInACommentButNotInAString() {
        String java = "class A {\n  // why it is so (issue 27)\n  String s = \"issue 4 // in a string\";\n"
                + "  /** Row sk, the skeleton (Issues #3 and 5). */\n  char c = '\"';\n}\n";
        assertThat(comments(java).stream().filter(c -> ISSUE_NUMBER.matcher(c).find()))
                .containsExactly(" why it is so (issue 27)", "* Row sk, the skeleton (Issues #3 and 5). ");
    }

    /**
     * Main and test code of every module (Java and JavaScript); not built or fetched files, nor the frozen copies of
     * earlier releases' code under {@code formats/generators/} (they regenerate recorded formats as they were).
     */
    private static boolean isSource(Path file) {
        String path = file.toString().replace('\\', '/');
        if (path.contains("/target/") || path.contains("/node_modules/") || path.contains("/.git/")
                || path.contains("/formats/generators/") || !path.contains("/src/")) {
            return false;
        }
        return path.endsWith(".java") || path.endsWith(".js") || path.endsWith(".mjs") || path.endsWith(".ts");
    }

    /** The comments of C-like source: line and block comments, with string and character literals skipped. */
    static List<String> comments(String source) {
        List<String> comments = new ArrayList<>();
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                int end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
                comments.add(source.substring(i + 2, end));
                i = end;
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end;
                comments.add(source.substring(i + 2, end));
                i = Math.min(n, end + 2);
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
            } else if (c == '"' || c == '\'' || c == '`') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
            } else {
                i++;
            }
        }
        return comments;
    }
}
