package io.actiongate.topics.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.actiongate.topics.Topics;

/** A run's plan and its report, without a broker (TopicsCreatorIT in cli runs them against one). */
class TopicsPlanTest {

    @Test
    void shouldPlanEveryTopicOfTheContract() {
        assertThat(TopicsCreator.Plan.of("acme.", 3, (short) 1).specs()).containsExactlyElementsOf(Topics.ALL);
    }

    @Test
    void shouldRefuseAPlanWithoutPartitionsOrReplicas() {
        assertThatThrownBy(() -> TopicsCreator.Plan.of("acme.", 0, (short) 1))
                .hasMessageContaining("partitions must be at least 1, got 0");
        assertThatThrownBy(() -> TopicsCreator.Plan.of("acme.", 1, (short) 0))
                .hasMessageContaining("replication factor must be at least 1, got 0");
    }

    @Test
    void shouldReportOnlyTheDriftedTopicsAsDrift() {
        TopicResult drifted = TopicResult.exists("acme.receipts",
                List.of(new TopicDrift("cleanup.policy", "compact", "delete")));
        TopicsReport report = new TopicsReport(List.of(TopicResult.created("acme.proposals"),
                TopicResult.exists("acme.decisions", List.of()), drifted));

        assertThat(report.hasDrift()).isTrue();
        assertThat(report.drifted()).containsExactly(drifted);
        assertThat(report.lines()).hasSize(3).allMatch(line -> line.startsWith("acme."));
        assertThat(report.lines().get(0)).endsWith("  created");
        assertThat(report.lines().get(1)).endsWith("  exists, ok");
        assertThat(report.lines().get(2)).contains("exists, DRIFT: ").contains("cleanup.policy");
        assertThat(new TopicsReport(report.topics().subList(0, 2)).hasDrift()).isFalse();
    }
}
