package io.actiongate.topics.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.cli.CliRun;
import io.actiongate.cli.ExitCodes;
import io.actiongate.topics.Topics;

class TopicsCreatorIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private TopicsCreator creator() {
        return new TopicsCreator(KAFKA.admin(), 30_000);
    }

    @Test
    void shouldCreateEveryTopicWithItsSpecifiedConfiguration(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);

        TopicsReport report = creator().create(TopicsCreator.Plan.of(prefix, 3, (short) 1));

        assertThat(report.topics()).hasSize(Topics.ALL.size())
                .allMatch(t -> t.action() == TopicResult.Action.CREATED);
        assertThat(report.topics().get(0).name()).isEqualTo(prefix + "proposals");
        // a busy broker may answer a describe right after the create before its metadata has caught up
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
                KAFKA.admin().describeTopics(Topics.names(prefix)).allTopicNames().get()
                        .forEach((name, description) -> assertThat(description.partitions()).hasSize(3)));
        assertThat(config(prefix + "receipts").get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("compact");
        Config conflicts = config(prefix + "conflicts");
        assertThat(conflicts.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("delete");
        assertThat(conflicts.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("604800000");
    }

    @Test
    void shouldBeIdempotentWhenRunTwice(TestInfo test) {
        String prefix = TestNames.topicPrefix(test);
        creator().create(TopicsCreator.Plan.of(prefix, 2, (short) 1));

        TopicsReport second = creator().create(TopicsCreator.Plan.of(prefix, 2, (short) 1));

        assertThat(second.hasDrift()).isFalse();
        assertThat(second.topics()).allMatch(t -> t.action() == TopicResult.Action.EXISTS);
        assertThat(second.lines()).allMatch(line -> line.endsWith("exists, ok"));

        CliRun cli = CliRun.of("topics", "create", "--bootstrap-servers", KAFKA.bootstrapServers(),
                "--prefix", prefix, "--partitions", "2");
        assertThat(cli.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(cli.out().lines()).hasSize(Topics.ALL.size()).allMatch(line -> line.endsWith("exists, ok"));
    }

    @Test
    void shouldReportWrongCleanupPolicyAsDriftAndLeaveTheTopicUnchanged(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        String receipts = prefix + "receipts";
        KAFKA.admin().createTopics(List.of(new NewTopic(receipts, 2, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "delete")))).all().get();

        TopicsReport report = creator().create(TopicsCreator.Plan.of(prefix, 2, (short) 1));

        assertThat(report.drifted()).singleElement().satisfies(result -> {
            assertThat(result.name()).isEqualTo(receipts);
            assertThat(result.action()).isEqualTo(TopicResult.Action.EXISTS);
            assertThat(result.drifts()).containsExactly(
                    new TopicDrift(TopicConfig.CLEANUP_POLICY_CONFIG, "compact", "delete"));
        });
        assertThat(report.topics()).filteredOn(t -> !t.name().equals(receipts))
                .allMatch(t -> t.action() == TopicResult.Action.CREATED);
        assertThat(config(receipts).get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("delete");

        CliRun cli = CliRun.of("topics", "create", "--bootstrap-servers", KAFKA.bootstrapServers(),
                "--prefix", prefix, "--partitions", "2");
        assertThat(cli.exitCode()).isEqualTo(ExitCodes.DRIFT);
        assertThat(cli.out()).containsPattern(receipts.replace(".", "\\.")
                + " +exists, DRIFT: cleanup\\.policy is delete, expected compact");
        assertThat(cli.err()).contains("1 topic(s) differ");
        assertThat(config(receipts).get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("delete");
    }

    @Test
    void shouldReportWrongPartitionCountAndRetention(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        KAFKA.admin().createTopics(List.of(
                new NewTopic(prefix + "proposals", 1, (short) 1)
                        .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact")),
                new NewTopic(prefix + "conflicts", 4, (short) 1)
                        .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "delete",
                                TopicConfig.RETENTION_MS_CONFIG, "3600000")))).all().get();

        TopicsReport report = creator().create(TopicsCreator.Plan.of(prefix, 4, (short) 1));

        assertThat(report.drifted()).extracting(TopicResult::name)
                .containsExactly(prefix + "proposals", prefix + "conflicts");
        assertThat(report.drifted().get(0).drifts()).containsExactly(new TopicDrift("partitions", "4", "1"));
        assertThat(report.drifted().get(1).drifts()).containsExactly(
                new TopicDrift(TopicConfig.RETENTION_MS_CONFIG, "604800000", "3600000"));
        assertThat(KAFKA.admin().describeTopics(List.of(prefix + "proposals")).allTopicNames().get()
                .get(prefix + "proposals").partitions()).hasSize(1);
    }

    @Test
    void shouldFailInOneLineWhenKafkaDoesNotAnswer() {
        CliRun cli = CliRun.of("topics", "create", "--bootstrap-servers", "127.0.0.1:1", "--timeout-ms", "1500");

        assertThat(cli.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(cli.err()).startsWith("error: cannot list topics: ").doesNotContain("\tat ");
    }

    private static Config config(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return KAFKA.admin().describeConfigs(List.of(resource)).all().get().get(resource);
    }
}
