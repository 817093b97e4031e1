package io.actiongate.layering;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The layering of the modules, checked on the production classes of every module (the dev kit's test classpath is
 * the only one that holds them all). Maven keeps a module from compiling against a module it does not declare;
 * these rules cover what Maven cannot see: package cycles, internal packages, and what the production artifact may
 * reference at all.
 */
class LayeringTest {

    /** Packages of the dev kit, its stand-ins and the chaos run: never reachable from the production artifact. */
    private static final String[] DEV_KIT = {"io.actiongate.dev..", "io.actiongate.broker..", "io.actiongate.sandbox..",
        "io.actiongate.chaos.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.actiongate");
    }

    @Test
    void shouldSeeEveryModule() {
        assertThat(classes.stream().map(c -> c.getName()))
                .contains("io.actiongate.gate.GateTopology", "io.actiongate.scan.CredentialScanner",
                        "io.actiongate.executor.Executor", "io.actiongate.reconciler.Reconciler",
                        "io.actiongate.node.ActiongateNode", "io.actiongate.http.GateHttpServer",
                        "io.actiongate.cli.Main", "io.actiongate.config.CommonConfig", "io.actiongate.topics.Topics",
                        "io.actiongate.connector.spi.Connector", "io.actiongate.broker.EmbeddedKafkaBroker",
                        "io.actiongate.dev.Main", "io.actiongate.dev.DevIdentityProvider",
                        "io.actiongate.approver.ApproverService", "io.actiongate.chaos.ChaosCommand")
                .noneMatch(name -> name.endsWith("Test") || name.endsWith("IT"));
    }

    @Test
    void shouldKeepTheDevKitOutOfEverythingElse() {
        noClasses().that().resideOutsideOfPackages(DEV_KIT)
                .should().dependOnClassesThat().resideInAnyPackage(DEV_KIT)
                .because("the production artifact (actiongate-cli) must run without the dev kit")
                .check(classes);
    }

    @Test
    void shouldKeepTestFrameworksMailServersAndTheBrokerOutOfProductionCode() {
        noClasses().that().resideOutsideOfPackages(DEV_KIT)
                .should().dependOnClassesThat()
                .resideInAnyPackage("org.junit..", "junit..", "com.icegreen..", "kafka..", "scala..")
                .check(classes);
    }

    @Test
    void shouldKeepTheMockIdentityProviderOutOfProductionCode() {
        noClasses().that().resideOutsideOfPackages(DEV_KIT)
                .should().dependOnClassesThat().resideInAnyPackage("no.nav.security..", "okhttp3.mockwebserver..",
                        "mockwebserver3..")
                .because("the approval service signs people in at the organisation's identity provider; the mock "
                        + "one is for dev, demo and tests only")
                .check(classes);
    }

    @Test
    void shouldKeepKafkaOutOfTheConnectors() {
        noClasses().that().resideInAPackage("io.actiongate.connector..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "kafka..")
                .because("a connector talks to one provider and knows nothing of Kafka")
                .check(classes);
    }

    @Test
    void shouldKeepTheGateFreeOfWorkersNodeAndCli() {
        // the gate classifies through the connector SPI only (docs/contract.md section 4, "Classification"), never a connector itself
        noClasses().that().resideInAnyPackage("io.actiongate.gate..", "io.actiongate.scan..")
                .should().dependOnClassesThat().resideInAnyPackage("io.actiongate.executor..",
                        "io.actiongate.reconciler..", "io.actiongate.clients..", "io.actiongate.http..",
                        "io.actiongate.node..", "io.actiongate.cli..", "io.actiongate.keyfiles..")
                .check(classes);
    }

    @Test
    void shouldLetTheGateSeeTheConnectorsOnlyThroughTheirSpi() {
        // the gate classifies with the providers' own logic (OperationClassifiers.of(ConnectorRegistry)) and
        // carries trace context (Tracing): both are the SPI; no connector's implementation is reachable
        noClasses().that().resideInAnyPackage("io.actiongate.gate..", "io.actiongate.scan..")
                .should().dependOnClassesThat(resideInAPackage("io.actiongate.connector..")
                        .and(not(resideInAPackage("io.actiongate.connector.spi.."))))
                .check(classes);
    }

    @Test
    void shouldKeepTheWorkersFreeOfTheGateNodeAndCli() {
        noClasses().that().resideInAnyPackage("io.actiongate.executor..", "io.actiongate.reconciler..",
                        "io.actiongate.clients..")
                .should().dependOnClassesThat().resideInAnyPackage("io.actiongate.gate..", "io.actiongate.scan..",
                        "io.actiongate.http..", "io.actiongate.node..", "io.actiongate.cli..")
                .check(classes);
    }

    @Test
    void shouldHaveNoCyclesBetweenTopLevelPackages() {
        slices().matching("io.actiongate.(*)..").should().beFreeOfCycles().check(classes);
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
