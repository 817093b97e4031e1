package io.actiongate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar that the Helm chart and the image run (built in the package phase, before this test): it holds the
 * gate, the workers and the node, and none of the dev kit, test frameworks, mail servers, broker or Scala. System
 * tier: the fast tier does not build the shaded jars (-Pdist and -Psystem do).
 */
@Tag("system")
class ProductionJarIT {

    private static final List<String> BANNED = List.of("org/junit/", "junit/", "com/icegreen/",
            "io/actiongate/dev/", "io/actiongate/broker/", "io/actiongate/sandbox/");
    /** The broker (kafka_2.13) and Scala; kafka-clients keeps its version files under kafka/, which are fine. */
    private static final List<String> BANNED_CLASSES = List.of("kafka/", "scala/");

    @Test
    void shouldHoldTheProductionCodeAndNothingOfTheDevKit() throws IOException {
        Path jar = Path.of(System.getProperty("actiongate.cli.jar", "target/missing.jar"));
        assertThat(jar).as("the shaded production jar").exists();

        try (JarFile file = new JarFile(jar.toFile())) {
            List<String> names = file.stream().map(ZipEntry::getName).toList();

            assertThat(names).contains("io/actiongate/cli/Main.class", "io/actiongate/gate/GateTopology.class",
                    "io/actiongate/executor/Executor.class", "io/actiongate/node/ActiongateNode.class",
                    "org/apache/kafka/streams/KafkaStreams.class", "logback.xml");
            // every role runs from it: the MCP gateway proposes through actiongate-client, which a test-scoped
            // declaration in cli's pom had left out (run --roles=mcp-gateway died with NoClassDefFoundError)
            assertThat(names).contains("io/actiongate/reconciler/Reconciler.class",
                    "io/actiongate/approver/ApproverService.class", "io/actiongate/mcp/McpGateway.class",
                    "io/actiongate/client/ActionGateClient.class");
            assertThat(names).filteredOn(name -> BANNED.stream().anyMatch(name::startsWith)).isEmpty();
            assertThat(names).filteredOn(name -> name.endsWith(".class"))
                    .filteredOn(name -> BANNED_CLASSES.stream().anyMatch(name::startsWith)).isEmpty();
            assertThat(file.getManifest().getMainAttributes().getValue("Main-Class")).isEqualTo(Main.class.getName());
        }
    }
}
