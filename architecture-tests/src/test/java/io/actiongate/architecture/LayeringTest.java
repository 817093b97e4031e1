package io.actiongate.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.actiongate.architecture.Modules.Module;

/**
 * Rules inside and across modules that the module order alone does not express: what the production artifact may
 * reference at all, how the gate sees the connectors, and no package cycles. Maven keeps a module from compiling
 * against a module it does not declare; these rules cover what Maven cannot see.
 */
class LayeringTest {

    /** The modules the production artifact ({@code actiongate-cli}) is built from. */
    private static final List<Module> PRODUCTION = Modules.production().stream()
            .filter(m -> !m.directory().startsWith("examples/")).toList();

    /** Everything else: examples, stand-ins, test support, the dev kit, the chaos run, the benchmark. */
    private static final List<Module> DEV_ONLY = Modules.ORDER.stream().filter(m -> !PRODUCTION.contains(m)).toList();

    @Test
    void shouldKeepTheDevKitOutOfEverythingElse() {
        noClasses().that(Modules.inAnyModuleOf(PRODUCTION))
                .should().dependOnClassesThat(Modules.inAnyModuleOf(DEV_ONLY))
                .because("the production artifact (actiongate-cli) must run without the dev kit")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldKeepTestFrameworksMailServersAndTheBrokerOutOfProductionCode() {
        noClasses().that(Modules.inAnyModuleOf(PRODUCTION))
                .should().dependOnClassesThat()
                .resideInAnyPackage("org.junit..", "junit..", "com.icegreen..", "kafka..", "scala..")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldKeepTheMockIdentityProviderOutOfProductionCode() {
        noClasses().that(Modules.inAnyModuleOf(PRODUCTION))
                .should().dependOnClassesThat().resideInAnyPackage("no.nav.security..", "okhttp3.mockwebserver..",
                        "mockwebserver3..")
                .because("the approval service signs people in at the organisation's identity provider; the mock "
                        + "one is for dev, demo and tests only")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldKeepKafkaOutOfTheConnectors() {
        noClasses().that().resideInAPackage("io.actiongate.connector..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "kafka..")
                .because("a connector talks to one provider and knows nothing of Kafka")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldKeepTheGateFreeOfWorkersNodeAndCli() {
        // the gate classifies through the connector SPI only (docs/contract.md section 4, "Classification"), never a connector itself
        noClasses().that().resideInAnyPackage("io.actiongate.gate..", "io.actiongate.scan..")
                .should().dependOnClassesThat().resideInAnyPackage("io.actiongate.executor..",
                        "io.actiongate.reconciler..", "io.actiongate.polling..", "io.actiongate.http..",
                        "io.actiongate.node..", "io.actiongate.cli..", "io.actiongate.keyfiles..")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldLetTheGateSeeTheConnectorsOnlyThroughTheirSpi() {
        // the gate classifies with the providers' own logic (OperationClassifiers.of(ConnectorRegistry)) and
        // carries trace context (Tracing): both are the SPI; no connector's implementation is reachable
        noClasses().that().resideInAnyPackage("io.actiongate.gate..", "io.actiongate.scan..")
                .should().dependOnClassesThat(resideInAPackage("io.actiongate.connector..")
                        .and(not(resideInAPackage("io.actiongate.connector.spi.."))))
                .check(ProductionClasses.get());
    }

    @Test
    void shouldKeepTheWorkersFreeOfTheGateNodeAndCli() {
        noClasses().that().resideInAnyPackage("io.actiongate.executor..", "io.actiongate.reconciler..",
                        "io.actiongate.polling..")
                .should().dependOnClassesThat().resideInAnyPackage("io.actiongate.gate..", "io.actiongate.scan..",
                        "io.actiongate.http..", "io.actiongate.node..", "io.actiongate.cli..")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldKeepTheExecutorAndTheReconcilerApart() {
        // two roles in one module: they share only the poll thread (io.actiongate.polling), the SPI and the schemas,
        // so either could become a module of its own without touching the other
        noClasses().that().resideInAPackage("io.actiongate.executor..")
                .should().dependOnClassesThat().resideInAPackage("io.actiongate.reconciler..")
                .check(ProductionClasses.get());
        noClasses().that().resideInAPackage("io.actiongate.reconciler..")
                .should().dependOnClassesThat().resideInAPackage("io.actiongate.executor..")
                .check(ProductionClasses.get());
        noClasses().that().resideInAPackage("io.actiongate.polling..")
                .should().dependOnClassesThat().resideInAnyPackage("io.actiongate.executor..",
                        "io.actiongate.reconciler..")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldUseGateInternalsOnlyInTheGate() {
        noClasses().that().resideOutsideOfPackage("io.actiongate.gate..")
                .should().dependOnClassesThat().resideInAPackage("io.actiongate.gate.internal..")
                .because("the gate's internal model changes with the gate: the node, the tools and the benchmark read "
                        + "its public read model (io.actiongate.gate.ActionView, IdempotencyKeys)")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldHaveNoCyclesBetweenTopLevelPackages() {
        slices().matching("io.actiongate.(*)..").should().beFreeOfCycles().check(ProductionClasses.get());
    }
}
