package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ProposalApiConfigTest {

    @Test
    void shouldBeOffWithoutATokensFileAndReviewOnTheApprovalServiceByDefault() {
        ProposalApiConfig none = new ProposalApiConfig(Map.of());
        assertThat(none.tokensFile()).isNull();
        assertThat(none.reviewUrl()).isNull();
        assertThat(none.answerTimeout().toMillis()).isEqualTo(5_000);
        ProposalApiConfig approver = new ProposalApiConfig(Map.of("approver.public.url", "https://approve.example/"));
        assertThat(approver.reviewUrl()).isEqualTo("https://approve.example/review/{task_id}/{tool_call_id}");
        assertThat(approver.reviewUrlConfigured()).isFalse();
        ProposalApiConfig set = new ProposalApiConfig(Map.of(ProposalApiConfig.REVIEW_URL_CONFIG, "https://r/{task_id}",
                "approver.public.url", "https://approve.example"));
        assertThat(set.reviewUrl()).isEqualTo("https://r/{task_id}");
        assertThat(set.reviewUrlConfigured()).isTrue();
    }

    @Test
    void shouldRefuseOutOfRangeLimits() {
        assertThatThrownBy(() -> new ProposalApiConfig(Map.of(ProposalApiConfig.MAX_BODY_CONFIG, "10")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(ProposalApiConfig.MAX_BODY_CONFIG);
        assertThatThrownBy(() -> new ProposalApiConfig(Map.of(ProposalApiConfig.ANSWER_TIMEOUT_CONFIG, "0")))
                .isInstanceOf(ConfigException.class);
    }
}
