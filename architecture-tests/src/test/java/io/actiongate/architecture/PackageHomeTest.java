package io.actiongate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import java.util.Optional;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import io.actiongate.architecture.Modules.Module;

/**
 * Each package lives in one module: a package split across two jars hides what a module holds (names
 * should say what is inside), lets one module reach the other's package-private members, and breaks on the module
 * path (JPMS refuses split packages).
 */
class PackageHomeTest {

    static ArchRule everyPackageInOneModule() {
        return classes().should(new ArchCondition<JavaClass>("share their package with no class of another module") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                Optional<Module> home = Modules.of(javaClass);
                TreeSet<String> others = new TreeSet<>();
                for (JavaClass neighbour : javaClass.getPackage().getClasses()) {
                    Modules.of(neighbour).filter(m -> home.isPresent() && !home.get().equals(m))
                            .ifPresent(m -> others.add(m.directory()));
                }
                if (!others.isEmpty()) {
                    events.add(SimpleConditionEvent.violated(javaClass, javaClass.getName() + " (module "
                            + home.get().directory() + ") shares package " + javaClass.getPackageName()
                            + " with module(s) " + others));
                }
            }
        }).because("a module's packages say what it holds: one package, one module");
    }

    @Test
    void shouldKeepEveryPackageInOneModule() {
        everyPackageInOneModule().check(ProductionClasses.get());
    }
}
