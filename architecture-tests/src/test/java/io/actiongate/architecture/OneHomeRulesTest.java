package io.actiongate.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;

import io.actiongate.avro.ToolDescriptor;

import io.actiongate.architecture.Modules.Module;

/**
 * One home for four rules: every HTTP surface of a role comes from the runtime module, only the policy
 * module reads policy records, every Kafka producer, consumer and admin client comes from {@code KafkaClients}, and
 * only {@code Partitioning} turns a key into its partition.
 */
class OneHomeRulesTest {

    /** What starts an HTTP server: the JDK's, Jetty's, and the Prometheus client's own. */
    private static final String HTTP_SERVERS = "com\\.sun\\.net\\.httpserver\\.Https?Server"
            + "|org\\.eclipse\\.jetty\\.server\\.(Server|ServerConnector)"
            + "|io\\.prometheus\\.metrics\\.exporter\\.httpserver\\.HTTPServer";

    /** PolicyRecord and every body it carries (docs/contract.md section 3). */
    private static final String POLICY_TYPES =
            "io\\.actiongate\\.avro\\.(PolicyRecord|ToolDescriptor|Integration|Grant|AuthorizationEpoch|TaskState|NotificationRoute"
                    + "|OriginState)(\\$.*)?";

    @Test
    void shouldStartHttpServersOnlyInTheRuntime() {
        // production modules only: the sandbox providers, the dev kit's stand-ins and the benchmark start their own
        List<Module> production = Modules.production().stream()
                .filter(m -> !m.directory().equals("runtime")).toList();
        noClasses().that(Modules.inAnyModuleOf(production))
                .should().dependOnClassesThat().haveNameMatching(HTTP_SERVERS)
                .because("every HTTP surface (node API, approver, gateway) runs on the runtime's Jetty, with its one "
                        + "auth layer, timeouts and limits")
                .check(ProductionClasses.get());
    }

    /**
     * Modules whose main classes may still create Kafka clients themselves: the embedded broker ({@code sandbox},
     * {@code test-support}: it formats and starts a broker, below every role), the benchmark ({@code load-tests},
     * whose benches are not yet moved to the factory) and its PostgreSQL baseline ({@code baseline-postgres}: the
     * alternative written without actiongate, on the plain Kafka clients, as its users would write it).
     */
    static final List<String> OWN_KAFKA_CLIENTS = List.of("sandbox", "test-support", "load-tests",
            "baseline-postgres");

    @Test
    void shouldCreateKafkaClientsOnlyInTheFactory() {
        List<Module> checked = Modules.ORDER.stream().filter(m -> !OWN_KAFKA_CLIENTS.contains(m.directory()))
                .toList();
        DescribedPredicate<JavaClass> kafkaClients = DescribedPredicate.describe("a Kafka client",
                c -> c.isAssignableTo("org.apache.kafka.clients.producer.KafkaProducer")
                        || c.isAssignableTo("org.apache.kafka.clients.consumer.KafkaConsumer"));
        DescribedPredicate<JavaClass> admins = DescribedPredicate.describe("the admin client",
                c -> c.isAssignableTo("org.apache.kafka.clients.admin.Admin"));
        noClasses().that(Modules.inAnyModuleOf(checked))
                .and(not(HasName.Predicates.nameMatching("io\\.actiongate\\.kafka\\.KafkaClients(\\$.*)?")))
                // a Kafka Streams client supplier is handed each client's complete configuration by Kafka Streams,
                // which applies exactly-once itself: it may only construct what it is asked for (a class nested in it,
                // a client that closes differently, say, constructs it with that configuration too)
                .and(not(JavaClass.Predicates.implement("org.apache.kafka.streams.KafkaClientSupplier")))
                .and(not(DescribedPredicate.describe("nested in a Kafka Streams client supplier",
                        (JavaClass c) -> c.getEnclosingClass().map(e -> e.isAssignableTo(
                                "org.apache.kafka.streams.KafkaClientSupplier")).orElse(false))))
                .should().callConstructorWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.<JavaClass>owner(
                        kafkaClients)))
                .orShould().callMethodWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.<JavaClass>owner(
                        admins)).and(JavaCall.Predicates.target(HasName.Predicates.name("create"))))
                .because("KafkaClients applies the kafka.* pass-through and the role defaults and refuses a setting "
                        + "that would weaken idempotence, acks=all, the transactional id or read_committed")
                .check(ProductionClasses.get());
    }

    @Test
    void shouldComputeKeyPartitionsOnlyInPartitioning() {
        // the gate's routing, the approval service's decision ids and the benchmark's misrouted records must agree
        // on where a key belongs (docs/contract.md section 2): one formula, in one class
        computesPartitions(Modules.inAnyModuleOf(Modules.ORDER)).check(ProductionClasses.get());
    }

    @Test
    void shouldSeeAPartitionComputedOutsidePartitioning() {
        JavaClasses fixtures = new ClassFileImporter().importClasses(ComputesAPartition.class);

        assertThat(computesPartitions(HasName.Predicates.name(ComputesAPartition.class.getName()))
                .evaluate(fixtures).hasViolation()).isTrue();
    }

    /** Fixture: the partition of a key computed by hand, as the benchmark's misrouting once did. */
    static final class ComputesAPartition {
        int partition(byte[] key, int partitions) {
            return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(key))
                    % partitions;
        }
    }

    private static ArchRule computesPartitions(DescribedPredicate<? super JavaClass> classes) {
        return noClasses().that(classes)
                .and(not(HasName.Predicates.name("io.actiongate.key.Partitioning")))
                .should().callMethod("org.apache.kafka.common.utils.Utils", "murmur2", byte[].class.getName())
                .because("Partitioning.home is the one place that turns a key into its partition");
    }

    @Test
    void shouldReadPolicyRecordsOnlyInThePolicyModule() {
        // reading a policy record's body (its getters) decides who may do what; building one (newBuilder, set*) to
        // publish it is a writer's business (the CLI, McpImport, the dev kit, the benchmark). No exemption: the
        // gate's checks, its routing, its cancel sweep and the gateway's input limit all ask the policy module.
        readsPolicyRecords(not(Modules.inAnyModuleOf(List.of(Modules.module("policy"), Modules.module("schemas-avro")))))
                .check(ProductionClasses.get());
    }

    @Test
    void shouldSeeAPolicyGetterCalledOrReferencedOutsideThePolicyModule() {
        // the rule can fail: a getter called (as PolicyChecks did in the gate) and one passed as a method reference
        // (as Admission's ToolDescriptor::getMaxInputBytes did, which a rule on calls alone missed)
        JavaClasses fixtures = new ClassFileImporter().importClasses(CallsAPolicyGetter.class,
                ReferencesAPolicyGetter.class, BuildsAPolicyRecord.class);
        DescribedPredicate<JavaClass> outsidePolicy = not(Modules.inAnyModuleOf(List.of(Modules.module("policy"))));
        for (Class<?> reader : List.of(CallsAPolicyGetter.class, ReferencesAPolicyGetter.class)) {
            assertThat(readsPolicyRecords(outsidePolicy.and(HasName.Predicates.name(reader.getName())))
                    .evaluate(fixtures).getFailureReport().getDetails()).as(reader.getSimpleName())
                    .anyMatch(line -> line.contains("ToolDescriptor.getMaxInputBytes()"));
        }
        assertThat(readsPolicyRecords(outsidePolicy.and(HasName.Predicates.name(BuildsAPolicyRecord.class.getName())))
                .evaluate(fixtures).hasViolation()).as("building a record to publish it reads nothing").isFalse();
    }

    /** Fixture: reads a descriptor's limit by calling its getter. */
    static final class CallsAPolicyGetter {
        int limit(ToolDescriptor tool) {
            return tool.getMaxInputBytes();
        }
    }

    /** Fixture: reads a descriptor's limit through a method reference. */
    static final class ReferencesAPolicyGetter {
        int limit(Optional<ToolDescriptor> tool) {
            return tool.map(ToolDescriptor::getMaxInputBytes).orElse(0);
        }
    }

    /** Fixture: builds a descriptor to publish it, as mcp import does. */
    static final class BuildsAPolicyRecord {
        ToolDescriptor.Builder descriptor() {
            return ToolDescriptor.newBuilder().setToolName("search").setMaxInputBytes(4096);
        }
    }

    private static ArchRule readsPolicyRecords(DescribedPredicate<? super JavaClass> classes) {
        // any access: a call, and a method reference (Optional.map(ToolDescriptor::getMaxInputBytes)) as well
        return noClasses().that(classes)
                .should().accessTargetWhere(JavaAccess.Predicates.target(HasOwner.Predicates.With.<JavaClass>owner(
                        HasName.Predicates.nameMatching(POLICY_TYPES)))
                        .and(JavaAccess.Predicates.target(HasName.Predicates.nameMatching("(get|has)[A-Z].*"))))
                .because("who may do what is asked of the policy module (PolicyLookup, PolicyTopicReader, "
                        + "PolicyChecks, ApprovalRoute, WrittenPolicy, "
                        + "TaskOwnership, TrustedRead, ApproverPolicy)");
    }
}
