package io.actiongate.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void shouldDoubleTheWaitAfterEachInconclusiveLookupUpToTheCeiling() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
        assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
        assertThat(backoff.delayAfter(6)).isEqualTo(Duration.ofSeconds(32));
        assertThat(backoff.delayAfter(7)).isEqualTo(Duration.ofSeconds(60));
        assertThat(backoff.delayAfter(1_000)).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void shouldUseTheConfiguredDefaults() {
        ReconcilerConfig config = new ReconcilerConfig(Map.of("bootstrap.servers", "127.0.0.1:9092"));
        assertThat(config.maxLookups()).isEqualTo(5);
        assertThat(config.backoff()).isEqualTo(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60)));
        assertThat(config.groupId()).isEqualTo("actiongate-reconciler");
    }

    @Test
    void shouldRejectACeilingBelowTheInitialWait() {
        assertThatThrownBy(() -> new ReconcilerConfig(Map.of("bootstrap.servers", "127.0.0.1:9092",
                ReconcilerConfig.BACKOFF_INITIAL_CONFIG, "5000", ReconcilerConfig.BACKOFF_MAX_CONFIG, "1000")))
                .isInstanceOf(ConfigException.class);
    }
}
