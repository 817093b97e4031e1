package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class ReviewUrlTest {

    private static String review(String pattern, String actionKey) {
        return new GatewayTools(null, null, pattern, Duration.ofSeconds(1), null, "", null).reviewUrl(actionKey);
    }

    @Test
    void shouldFillTheApprovalServicesReviewPathFromTheActionKey() {
        assertThat(review("http://localhost:4000/review/{task_id}/{tool_call_id}", "T-1/call:7"))
                .isEqualTo("http://localhost:4000/review/T-1/call:7");
    }

    @Test
    void shouldFillAnEncodedActionKeyOrAddItAsAParameter() {
        assertThat(review("https://approve.example/a/{action_key}", "T-1/c-1"))
                .isEqualTo("https://approve.example/a/T-1%2Fc-1");
        assertThat(review("https://approve.example/queue", "T-1/c-1"))
                .isEqualTo("https://approve.example/queue?action=T-1%2Fc-1");
    }
}
