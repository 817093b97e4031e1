package io.actiongate.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

import io.actiongate.architecture.Modules.Module;

/**
 * The module order as a layered rule on the production classes of every module, and the README's module picture
 * and the root pom checked against that order.
 */
class ModuleOrderTest {

    /** Each module may depend only on the modules above it in {@link Modules#ORDER}. */
    static LayeredArchitecture moduleOrder(List<Module> order) {
        LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (Module module : order) {
            rule = rule.layer(module.layer()).definedBy(Modules.inModule(module));
        }
        for (int i = 1; i < order.size(); i++) {
            rule = rule.whereLayer(order.get(i).layer())
                    .mayOnlyAccessLayers(order.subList(0, i).stream().map(Module::layer).toArray(String[]::new));
        }
        return rule.whereLayer(order.get(0).layer()).mayNotAccessAnyLayer()
                .ensureAllClassesAreContainedInArchitecture();
    }

    @Test
    void shouldLetEachModuleDependOnlyOnTheModulesAboveIt() {
        moduleOrder(Modules.ORDER)
                .because("the README's module picture is the layering: a module depends only on those above it")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldSeeTheProductionClassesOfEveryModule() {
        List<String> seen = ProductionClasses.get().stream().map(Modules::of).flatMap(java.util.Optional::stream)
                .map(Module::directory).distinct().toList();
        assertThat(seen).as("modules whose classes the rules import")
                .containsExactlyInAnyOrderElementsOf(Modules.ORDER.stream().map(Module::directory).toList());
        assertThat(ProductionClasses.get().stream().map(c -> c.getName()))
                .contains("io.actiongate.gate.GateTopology", "io.actiongate.loadtest.Benchmark",
                        "io.actiongate.testing.KafkaBrokerExtension", "io.actiongate.chaos.ChaosCommand")
                // JMH's annotation processor names its generated benchmark classes *_jmhTest: code, not tests
                .noneMatch(name -> !name.contains(LabPackagesTest.JMH_GENERATED + ".")
                        && (name.endsWith("Test") || name.endsWith("IT")));
    }

    @Test
    void shouldPlaceEveryModuleOfTheRootPomInTheOrder() throws IOException {
        String pom = Files.readString(ProductionClasses.root().resolve("pom.xml"), StandardCharsets.UTF_8);
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        while (m.find()) {
            modules.add(m.group(1).strip());
        }
        assertThat(modules).as("the root pom's modules: each is in Modules.ORDER, or tests-only")
                .containsExactlyInAnyOrderElementsOf(readmeOrder());
    }

    @Test
    void shouldDrawTheReadmesModulePictureInTheLayeredOrder() throws IOException {
        assertThat(readmePicture()).as("the modules of the README's picture (## Modules), top to bottom")
                .containsExactlyElementsOf(readmeOrder());
    }

    /** The order the README draws: the layered modules, then the tests-only ones. */
    private static List<String> readmeOrder() {
        return Stream.concat(Modules.ORDER.stream().map(Module::directory), Modules.TESTS_ONLY.stream()).toList();
    }

    /** The directories at the start of each line of the first code block under "## Modules". */
    static List<String> readmePicture() throws IOException {
        String readme = Files.readString(ProductionClasses.root().resolve("README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("\n## Modules\n");
        assertThat(section).as("README has a section '## Modules'").isPositive();
        int open = readme.indexOf("\n```", section);
        int close = readme.indexOf("\n```", open + 4);
        assertThat(open).as("its picture is a code block").isPositive();
        List<String> modules = new ArrayList<>();
        Matcher line = Pattern.compile("(?m)^([A-Za-z0-9][A-Za-z0-9./-]*)/\\s").matcher(
                readme.substring(readme.indexOf('\n', open + 1), close));
        while (line.find()) {
            modules.add(line.group(1));
        }
        return modules;
    }
}
