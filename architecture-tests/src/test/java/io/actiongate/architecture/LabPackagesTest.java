package io.actiongate.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

/**
 * The benchmark ({@code load-tests}) in four packages by what they are, with every dependency pointing one way:
 * the entry points (the bench jar's mains, {@code io.actiongate.loadtest}) use the parts, the parts the baselines,
 * the baselines the harness (runner context, nodes and processes, load, CPU accounting), the harness the report
 * (report model, Markdown/JSON/plot writing, goal judging), which uses none of them.
 */
class LabPackagesTest {

    static final String ROOT = "io.actiongate.loadtest";
    /** What JMH's annotation processor generates beside part topology's benchmarks (in the parts layer). */
    static final String JMH_GENERATED = ".parts.jmh_generated";

    static LayeredArchitecture labPackages() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("entry points").definedBy(ROOT)
                .layer("parts").definedBy(ROOT + ".parts..")
                .layer("baselines").definedBy(ROOT + ".baselines..")
                .layer("harness").definedBy(ROOT + ".harness..")
                .layer("report").definedBy(ROOT + ".report..")
                .whereLayer("entry points").mayNotBeAccessedByAnyLayer()
                .whereLayer("parts").mayOnlyBeAccessedByLayers("entry points")
                .whereLayer("baselines").mayOnlyBeAccessedByLayers("entry points", "parts")
                .whereLayer("harness").mayOnlyBeAccessedByLayers("entry points", "parts", "baselines")
                .whereLayer("report").mayOnlyBeAccessedByLayers("entry points", "parts", "baselines", "harness");
    }

    @Test
    void shouldPointTheBenchmarksPackagesOneWay() {
        JavaClasses bench = ProductionClasses.get().that(com.tngtech.archunit.core.domain.JavaClass.Predicates
                .resideInAPackage(ROOT + ".."));
        assertThat(bench.stream().map(c -> c.getPackageName()).distinct())
                .as("the benchmark's packages")
                .containsExactlyInAnyOrder(ROOT, ROOT + ".parts", ROOT + ".baselines", ROOT + ".harness",
                        ROOT + ".report", ROOT + JMH_GENERATED);
        labPackages().because("a part may use a baseline, the harness and the report, never the other way round")
                .check(bench);
    }
}
