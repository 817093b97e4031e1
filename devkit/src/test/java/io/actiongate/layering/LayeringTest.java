package io.actiongate.layering;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The last rule not yet in the architecture-tests module, which holds every other layering rule: it moves there
 * once the node has a public read model of the gate's state.
 */
class LayeringTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.actiongate");
    }

    @Test
    void shouldUseGateInternalsOnlyInTheGate() {
        // Known debt (issue 14, later step): the node reads the gate's store values (ActionState, its Phase,
        // StateRecords). Every other use of gate.internal outside the gate fails, and so does any use of these
        // beyond the node.
        noClasses().that().resideOutsideOfPackage("io.actiongate.gate..")
                .should().dependOnClassesThat(resideInAPackage("io.actiongate.gate.internal..")
                        .and(not(belongToAnyOf(io.actiongate.gate.internal.ActionState.class,
                                io.actiongate.gate.internal.Phase.class,
                                io.actiongate.gate.internal.StateRecords.class))))
                .check(classes);
        noClasses().that().resideOutsideOfPackages("io.actiongate.gate..", "io.actiongate.node..")
                .should().dependOnClassesThat(resideInAnyPackage("io.actiongate.gate.internal.."))
                .check(classes);
    }
}
