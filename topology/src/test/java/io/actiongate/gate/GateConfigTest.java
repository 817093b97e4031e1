package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.gate.internal.TrustedKeys;

class GateConfigTest {

    @Test
    void shouldApplyTheDocumentedDefaults() {
        GateConfig c = GateConfig.fromStrings(Map.of());
        assertThat(c.topicPrefix()).isEqualTo("actiongate.");
        assertThat(c.approvalTimeout()).isEqualTo(Duration.ofHours(24));
        assertThat(c.leaseDuration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.dispatchTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.retryMaxAttempts()).isEqualTo(3);
        assertThat(c.retryAfterCap()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.dedupeWindow()).isEqualTo(Duration.ofDays(7));
        assertThat(c.punctuateInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.summaryMaxChars()).isEqualTo(280);
        assertThat(c.trustedKeys().size()).isZero();
    }

    @Test
    void shouldParseDurationsInEveryAcceptedForm() {
        GateConfig c = GateConfig.fromStrings(Map.of(GateConfig.APPROVAL_TIMEOUT_CONFIG, "PT2H",
                GateConfig.LEASE_DURATION_CONFIG, "1500", GateConfig.DEDUPE_WINDOW_CONFIG, "2d"));
        assertThat(c.approvalTimeout()).isEqualTo(Duration.ofHours(2));
        assertThat(c.leaseDuration()).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.dedupeWindow()).isEqualTo(Duration.ofDays(2));
    }

    @Test
    void shouldRejectMoreThanThreeAttempts() {
        assertThatThrownBy(() -> GateConfig.fromStrings(Map.of(GateConfig.RETRY_MAX_ATTEMPTS_CONFIG, "4")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void shouldRejectAnInvalidDuration() {
        assertThatThrownBy(() -> GateConfig.fromStrings(Map.of(GateConfig.LEASE_DURATION_CONFIG, "soon")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(GateConfig.LEASE_DURATION_CONFIG);
    }

    @Test
    void shouldRejectASummaryLimitAboveTheContract() {
        assertThatThrownBy(() -> GateConfig.fromStrings(Map.of(GateConfig.SUMMARY_MAX_CHARS_CONFIG, "281")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void shouldLoadTrustedKeysFromAMountedDirectoryAndSkipHiddenFiles(@TempDir Path dir) throws Exception {
        KeyPair pair = GateDriver.newKeyPair();
        Files.writeString(dir.resolve("ops-2026.pem"), TrustedKeys.toPem(pair.getPublic()));
        Files.writeString(dir.resolve(".hidden"), "not a key");
        GateConfig c = GateConfig.fromStrings(Map.of(GateConfig.TRUSTED_KEYS_DIR_CONFIG, dir.toString()));
        assertThat(c.trustedKeys().find("ops-2026")).contains(pair.getPublic());
    }

    @Test
    void shouldRejectATrustedKeyThatIsNotEd25519WithoutEchoingIt() {
        assertThatThrownBy(() -> GateConfig.fromStrings(Map.of(GateConfig.TRUSTED_KEYS_CONFIG, "k1=bm90LWEta2V5")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("k1").hasMessageNotContaining("bm90");
    }

    @Test
    void shouldRequireApproverOrgToEqualTheActionOrgAndHonourTheList() {
        GateConfig open = GateConfig.fromStrings(Map.of());
        assertThat(open.approvers().mayDecide("acme", "anyone", "acme")).isTrue();
        assertThat(open.approvers().mayDecide("other", "anyone", "acme")).isFalse();
        GateConfig listed = GateConfig.fromStrings(Map.of(GateConfig.APPROVERS_CONFIG, "acme:alice,beta:*"));
        assertThat(listed.approvers().mayDecide("acme", "alice", "acme")).isTrue();
        assertThat(listed.approvers().mayDecide("acme", "bob", "acme")).isFalse();
        assertThat(listed.approvers().mayDecide("beta", "bob", "beta")).isTrue();
    }

    @Test
    void shouldAlwaysRunExactlyOnceV2WhateverTheOverrides() {
        GateConfig c = GateConfig.fromStrings(Map.of("gate.streams.processing.guarantee", "at_least_once",
                "gate.streams.commit.interval.ms", "250", GateConfig.APPLICATION_ID_CONFIG, "gate-a",
                "kafka.security.protocol", "SSL"));
        Properties p = GateStreams.properties(c);
        assertThat(p.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(p.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("250");
        assertThat(p.get(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo("gate-a");
        assertThat(p.get("security.protocol")).isEqualTo("SSL");
        assertThat(c.unrecognizedKeys()).isEmpty();
    }

    @Test
    void shouldCommitBacklogsEvery50msAndNeverIdleUnlessOverridden() {
        Properties defaults = GateStreams.properties(GateConfig.fromStrings(Map.of()));
        assertThat(defaults.get(StreamsConfig.POLL_MS_CONFIG)).as("Kafka's: commits do not wait for it").isNull();
        assertThat(defaults.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("50");
        assertThat(defaults.get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo("-1");
        // a follower: answered as soon as a policy record arrives (its close does not wait: GateClientSupplierIT)
        assertThat(defaults.get("global.consumer.fetch.max.wait.ms")).isEqualTo("5000");
        // Kafka's own defaults, which the gate replaces, so a change of Kafka's would be noticed here
        StreamsConfig kafka = new StreamsConfig(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "a",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1",
                StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2));
        assertThat(kafka.getLong(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(100L);
        assertThat(kafka.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(100L);
        assertThat(kafka.getLong(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo(0L);

        Properties overridden = GateStreams.properties(GateConfig.fromStrings(Map.of(
                "gate.streams.poll.ms", "100", "gate.streams.commit.interval.ms", "1000",
                "gate.streams.max.task.idle.ms", "0")));
        assertThat(overridden.get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo("100");
        assertThat(overridden.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("1000");
        assertThat(overridden.get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo("0");
    }

    @Test
    void shouldKeepAStandbyOfEveryTaskUnlessOverridden() {
        Properties defaults = GateStreams.properties(GateConfig.fromStrings(Map.of()));
        assertThat(defaults.get(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG)).isEqualTo("1");
        assertThat(defaults.get(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG)).isEqualTo("10000");
        // Kafka's own: no standby (what the gate replaces), and the recovery lag the gate states as its own
        StreamsConfig kafka = new StreamsConfig(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "a",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1"));
        assertThat(kafka.getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG)).isZero();
        assertThat(kafka.getLong(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG)).isEqualTo(10_000L);

        Properties overridden = GateStreams.properties(GateConfig.fromStrings(Map.of(
                "gate.streams.num.standby.replicas", "0")));
        assertThat(overridden.get(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG)).isEqualTo("0");
    }

    @Test
    void shouldDocumentEveryKeyForTheReadme() {
        String table = GateConfig.toMarkdown();
        GateConfig.CONFIG_DEF.names().stream().filter(n -> n.startsWith("gate."))
                .forEach(name -> assertThat(table).contains("`" + name + "`"));
        assertThat(table).contains("`gate.approval.timeout` | `24h`");
    }

    @Test
    void shouldNameEveryNodeAndUseThePolicyTopicAsAGlobalStore() {
        TopologyDescription d = GateTopology.build(GateConfig.fromStrings(Map.of()), OperationClassifiers.NONE).describe();
        String text = d.toString();
        assertThat(d.globalStores()).singleElement().satisfies(g -> {
            assertThat(g.source().topicSet()).containsExactly("actiongate.policy");
            assertThat(g.processor().stores()).containsExactly(GateStores.POLICY);
        });
        assertThat(text).doesNotContain("KSTREAM-").doesNotContain("KTABLE-");
        assertThat(d.subtopologies()).hasSize(1);
        assertThat(text).contains(GateTopology.ADMIT, GateTopology.DECIDE, GateTopology.SETTLE, GateTopology.RECONCILE,
                GateTopology.TIMERS, GateStores.ACTIONS, GateStores.TIMERS, GateStores.PENDING, GateStores.DECISION_IDS);
        // the route of every input, its hop topic and the decision claim live in the same sub-topology
        assertThat(text).contains(GateTopology.PROPOSALS_ROUTE, GateTopology.DECISIONS_ROUTE,
                GateTopology.OUTCOMES_ROUTE, GateTopology.RECONCILIATIONS_ROUTE, GateTopology.CLAIM,
                GateStores.DECISION_CLAIMS);
        for (String hop : GateTopology.HOPS) {
            assertThat(text).contains(GateTopology.hopEntry(hop), GateTopology.hopExit(hop), hop + "-repartition");
        }
    }
}
